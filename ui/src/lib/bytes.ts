/**
 * Normalising terminal output batches from the backend to bytes.
 *
 * The engine sends raw bytes over a Tauri channel, which arrive as an ArrayBuffer. Older IPC
 * paths serialise `Vec<u8>` as a JSON number array, and tests hand over Uint8Arrays, so all
 * three are accepted. Anything else is a contract violation and yields `null`.
 */
export function toBytes(message: unknown): Uint8Array | null {
  if (message instanceof Uint8Array) return message;
  if (message instanceof ArrayBuffer) return new Uint8Array(message);
  if (ArrayBuffer.isView(message)) {
    return new Uint8Array(message.buffer, message.byteOffset, message.byteLength);
  }
  if (Array.isArray(message) && message.every((b) => Number.isInteger(b) && b >= 0 && b <= 255)) {
    return Uint8Array.from(message as number[]);
  }
  return null;
}
