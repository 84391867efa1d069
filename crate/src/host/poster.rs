//! The poster: a 1200×630 PNG still of one moment of a replay, drawn on the server without a GPU
//! (tiny-skia): a top-down view of the entities as faction-coloured marks with their heading, short
//! trails, kills near that time, a few callsigns and the title.
