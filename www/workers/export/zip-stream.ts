// A .zip of one entry, written as its bytes come (docs/export.md "In the player": Export → ACMI,
// zipped): fflate's streaming Zip and Deflate, in the export worker, imported there on the first
// zipped export only (nothing of it in the first load). Never holds the whole input or output:
// each push() deflates what it is given and hands on what the deflater wrote.
//
// The entry is fflate's `ZipInputFile` interface filled in here rather than a `ZipDeflate`, so that
// its deflate stream can end with another one: a helper worker deflates the later part of an
// export on its own (`deflateStream`), this stream is flushed to a byte boundary (`flush`), and
// the helper's is appended whole (`append`). The entry's CRC-32 and size are given at the end
// (`end`): the wasm counts them (`ExportSession.textCrc`, `crc32Combine`).
import { Deflate, Zip } from 'fflate';
import type { FlateError, ZipInputFile } from 'fflate';

/** The deflate level of both parts (fflate's default; the CLI's `zip` crate's is 6 too). */
const LEVEL = 6;

/** A .zip of one entry being written (`zipStream`). */
export interface ZipStream {
  push(bytes: Uint8Array): void;
  flush(): void;
  append(deflated: Uint8Array): void;
  end(crc: number, size: number): void;
}

/** A deflate stream of its own (`deflateStream`). */
export interface DeflateStream {
  push: (bytes: Uint8Array) => void;
  end: () => void;
}

/**
 * `name`: the entry's name; `out`: called with each piece of the .zip, in order.
 */
export function zipStream(name: string, out: (bytes: Uint8Array) => void): ZipStream {
  let failed: FlateError | null = null;
  const zip = new Zip((err, data) => {
    if (err) failed = err;
    else if (data?.length) out(data);
  });
  const entry: ZipInputFile = { filename: name, size: 0, crc: 0, compression: 8, flag: 0 };
  zip.add(entry);
  let flushed = false;
  const deflate = new Deflate({ level: LEVEL }, (dat, final) => entry.ondata?.(null, dat, final));
  const check = () => {
    if (failed) throw new Error(`zip: ${failed.message ?? failed}`);
  };
  return {
    /** Deflates `bytes` of the entry. */
    push(bytes) {
      if (!bytes?.length) return;
      if (flushed) throw new Error('zip: push() after flush()');
      deflate.push(bytes, false);
      check();
    },
    /** Ends this stream's part at a byte boundary, not as the last block: another deflate
     *  stream follows (`append`). */
    flush() {
      deflate.flush(true);
      flushed = true;
      check();
    },
    /** Appends bytes of a deflate stream of its own (after `flush`). */
    append(deflated) {
      if (!flushed) throw new Error('zip: append() before flush()');
      if (deflated?.length) entry.ondata?.(null, deflated as Uint8Array<ArrayBuffer>, false);
      check();
    },
    /** Ends the entry, whose text had CRC-32 `crc` and `size` bytes, and the zip. */
    end(crc, size) {
      entry.crc = crc >>> 0;
      entry.size = size;
      if (flushed) entry.ondata?.(null, new Uint8Array(0), true);
      else deflate.push(new Uint8Array(0), true);
      zip.end();
      check();
    },
  };
}

/**
 * A deflate stream of its own (a helper's part of a zipped export, appended to the entry's
 * stream by `zipStream(...).append`). `out`: called with each piece of the stream, in order.
 */
export function deflateStream(out: (bytes: Uint8Array) => void): DeflateStream {
  const deflate = new Deflate({ level: LEVEL }, (dat) => {
    if (dat?.length) out(dat);
  });
  return {
    push: (bytes) => {
      if (bytes?.length) deflate.push(bytes, false);
    },
    end: () => deflate.push(new Uint8Array(0), true),
  };
}
