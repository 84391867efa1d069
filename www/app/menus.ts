// The full page's ☰ menu and Details drawer (style.css "every size"), imported when one is first
// opened: at most 1240 px wide the top bar's actions are a menu (a popover under the bar); on a
// narrow landscape screen the side panels are a drawer. A choice made in the menu, or a press
// anywhere outside it, closes it; Esc closes the menu, then the drawer (docs/playback.md
// "Every size"). Imports nothing (a lazily loaded module: docs/ARCHITECTURE.md).

/** The elements createMenus() works on. */
export interface MenuParts {
  topbar: Element;
  menuBtn: HTMLElement;
  menu: HTMLElement;
  sideBtn: HTMLElement;
  layout: HTMLElement;
}

/** The ☰ menu and the Details drawer: `close()` says whether it closed one. */
export interface Menus {
  toggleMenu(): void;
  toggleDrawer(): void;
  close(): boolean;
}

/**
 * `ids`: the ids of the top bar, the menu button, the menu (the bar's actions), the drawer button
 * and the layout the drawer opens in. Returns `{ toggleMenu, toggleDrawer, close }`; `close()`
 * says whether it closed one.
 */
export function createMenus({ topbar, menuBtn, menu, sideBtn, layout }: MenuParts): Menus {
  const isOpen = () => topbar.classList.contains('menu-open');
  const drawerOpen = () => layout.classList.contains('side-open');
  function showMenu(open: boolean) {
    topbar.classList.toggle('menu-open', open);
    menuBtn.setAttribute('aria-expanded', String(open));
  }
  function showDrawer(open: boolean) {
    layout.classList.toggle('side-open', open);
    sideBtn.setAttribute('aria-expanded', String(open));
  }
  menu.addEventListener('click', (e) => {
    if ((e.target as Element).closest('button')) showMenu(false);
  });
  document.addEventListener('pointerdown', (e) => {
    if (isOpen() && !menu.contains(e.target as Node | null) && !menuBtn.contains(e.target as Node | null))
      showMenu(false);
  });
  return {
    toggleMenu: () => showMenu(!isOpen()),
    toggleDrawer: () => showDrawer(!drawerOpen()),
    close() {
      if (isOpen()) {
        showMenu(false);
        menuBtn.focus();
        return true;
      }
      if (drawerOpen()) {
        showDrawer(false);
        return true;
      }
      return false;
    },
  };
}
