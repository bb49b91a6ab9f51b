// Writes images/icon.png (128x128): a runway-blue rounded square with three cost bars and a
// dashed cap line. Run: node images/make-icon.mjs (no dependencies: zlib + a CRC).
import { writeFileSync } from 'node:fs';
import { deflateSync } from 'node:zlib';

const N = 128;
const px = Buffer.alloc(N * N * 4);
function set(x, y, [r, g, b, a = 255]) {
  const i = (y * N + x) * 4;
  px[i] = r; px[i + 1] = g; px[i + 2] = b; px[i + 3] = a;
}
const bg = [30, 64, 120];
for (let y = 0; y < N; y++) {
  for (let x = 0; x < N; x++) {
    const r = 22; // rounded corners
    const cx = Math.min(Math.max(x, r), N - 1 - r), cy = Math.min(Math.max(y, r), N - 1 - r);
    const inside = (x - cx) ** 2 + (y - cy) ** 2 <= r * r;
    set(x, y, inside ? bg : [0, 0, 0, 0]);
  }
}
const bars = [[28, 0.55, [89, 161, 79]], [56, 0.8, [237, 201, 72]], [84, 1.05, [225, 87, 89]]];
const baseY = 104, capH = 64;
for (const [x0, share, colour] of bars) {
  const h = Math.round(capH * share);
  for (let y = baseY - h; y < baseY; y++) for (let x = x0; x < x0 + 18; x++) set(x, y, colour);
}
for (let x = 18; x < 112; x++) if (Math.floor((x - 18) / 6) % 2 === 0) for (let y = baseY - capH - 1; y <= baseY - capH + 1; y++) set(x, y, [255, 255, 255]);
for (let x = 18; x < 112; x++) for (let y = baseY; y < baseY + 3; y++) set(x, y, [220, 230, 245]);

const table = new Int32Array(256).map((_, n) => { let c = n; for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1; return c; });
const crc = (buf) => { let c = -1; for (const b of buf) c = table[(c ^ b) & 0xff] ^ (c >>> 8); return (c ^ -1) >>> 0; };
function chunk(type, data) {
  const len = Buffer.alloc(4); len.writeUInt32BE(data.length);
  const td = Buffer.concat([Buffer.from(type), data]);
  const c = Buffer.alloc(4); c.writeUInt32BE(crc(td));
  return Buffer.concat([len, td, c]);
}
const ihdr = Buffer.alloc(13);
ihdr.writeUInt32BE(N, 0); ihdr.writeUInt32BE(N, 4); ihdr[8] = 8; ihdr[9] = 6;
const raw = Buffer.alloc(N * (N * 4 + 1));
for (let y = 0; y < N; y++) px.copy(raw, y * (N * 4 + 1) + 1, y * N * 4, (y + 1) * N * 4);
const png = Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]);
writeFileSync(new URL('./icon.png', import.meta.url), png);
