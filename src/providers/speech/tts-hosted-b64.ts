// Base64 from a vendor, checked: Buffer.from silently skips characters that are not base64, so
// garbage would play as noise instead of failing.
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

export function decodeBase64(value: string): Uint8Array {
  if (value.length % 4 !== 0 || !BASE64.test(value)) throw new Error('audio that is not base64');
  return Buffer.from(value, 'base64');
}
