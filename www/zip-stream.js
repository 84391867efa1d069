// A .zip of one entry, written as its bytes come (docs/export.md "In the player": Export → ACMI,
// zipped): fflate's streaming Zip / ZipDeflate, in the export worker, imported there on the first
// zipped export only (nothing of it in the first load). Never holds the whole input or output:
// each push() deflates what it is given and hands on what the deflater wrote.
import { Zip, ZipDeflate } from 'fflate';

/**
 * @param {string} name  the entry's name
 * @param {(bytes: Uint8Array) => void} out  called with each piece of the .zip, in order
 * @returns {{push: (bytes: Uint8Array) => void, end: () => void}}
 */
export function zipStream(name, out) {
  let failed = null;
  const zip = new Zip((err, data) => {
    if (err) failed = err;
    else if (data?.length) out(data);
  });
  const entry = new ZipDeflate(name, { level: 6 });
  zip.add(entry);
  const check = () => {
    if (failed) throw new Error(`zip: ${failed.message ?? failed}`);
  };
  return {
    push(bytes) {
      if (bytes?.length) entry.push(bytes, false);
      check();
    },
    end() {
      entry.push(new Uint8Array(0), true);
      zip.end();
      check();
    },
  };
}
