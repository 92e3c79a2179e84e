import { createCipheriv, createDecipheriv, hkdfSync } from 'node:crypto';

const BLOCK_BYTES = 16;
/** Bytes after the kind and the id that must be zero when a presented id is opened: a forged one passes with odds of 2^-56. */
const CHECK_FROM = 9;
const OPAQUE = /^[A-Za-z0-9_-]{22}$/;

/** A row id and the small number that says which kind of row it is. */
export interface TaggedId {
  readonly tag: number;
  readonly id: number;
}

/**
 * Row ids handed to clients as strings that say nothing of how many rows there are: AES over a
 * single block is a keyed permutation, so each (tag, id) has one fixed 22-character form, the
 * server turns it back without a lookup, and without the key neither the next id nor the count
 * can be told. The block holds the tag, the id, and zeros that a made-up string almost never
 * decrypts to. Ids in URLs stay stable from one listing to the next, unlike sealed (randomised) ones.
 */
export class OpaqueIds {
  private readonly key: Buffer;

  /** `purpose` keeps keys derived from one secret apart. */
  constructor(secret: string, purpose: string) {
    this.key = Buffer.from(hkdfSync('sha256', secret, 'gatehouse opaque ids', purpose, 16));
  }

  format({ tag, id }: TaggedId): string {
    const block = Buffer.alloc(BLOCK_BYTES);
    block.writeUInt8(tag, 0);
    block.writeBigUInt64BE(BigInt(id), 1);
    return this.transform(block, 'encrypt').toString('base64url');
  }

  /** The tag and id of a string `format` made with this key; null for anything else. */
  parse(text: string): TaggedId | null {
    if (!OPAQUE.test(text)) return null;
    const block = this.transform(Buffer.from(text, 'base64url'), 'decrypt');
    if (block.subarray(CHECK_FROM).some((byte) => byte !== 0)) return null;
    const id = block.readBigUInt64BE(1);
    if (id === 0n || id > BigInt(Number.MAX_SAFE_INTEGER)) return null;
    return { tag: block.readUInt8(0), id: Number(id) };
  }

  private transform(block: Buffer, direction: 'encrypt' | 'decrypt'): Buffer {
    const cipher = direction === 'encrypt' ? createCipheriv('aes-128-ecb', this.key, null) : createDecipheriv('aes-128-ecb', this.key, null);
    cipher.setAutoPadding(false);
    return Buffer.concat([cipher.update(block), cipher.final()]);
  }
}
