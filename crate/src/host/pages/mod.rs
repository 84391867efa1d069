//! Pure builders of what the host answers as HTML and JSON: the replay page `/r/{id}` (the player's
//! page with Open Graph / Twitter card tags and the oEmbed discovery link in its head), the oEmbed
//! answer, and the gallery. No I/O: the server hands in records and templates.
