/**
 * The engine's framed protocol as a browser speaks it over the engine's WebSocket: the shapes of
 * `crates/switchboard-api/src/wire.rs` (serde's `tag = "type"`, snake_case) and the frames that
 * carry them. A frame is `u32 BE length | u8 kind | body`, the length counting the kind and the
 * body; a message body is one JSON value, an output body a `u32 BE` stream number and a terminal's
 * raw bytes. Over the WebSocket one binary message carries exactly one frame, whole (its length
 * included), each way. Pure: no socket, no timer.
 */
import type { ApiError, Command, EngineEvent, HostLink, PageNotice, Reply, SessionId } from './bindings';

/** The protocol this page speaks (`wire::PROTOCOL`). */
export const PROTOCOL = 1;
/** A frame of one JSON value (`wire::MESSAGE`). */
export const MESSAGE = 0;
/** A frame of terminal output: a stream number and raw bytes (`wire::OUTPUT`). */
export const OUTPUT = 1;
/** The longest frame either side accepts (`wire::MAX_FRAME_BYTES`): a longer one is refused. */
export const MAX_FRAME_BYTES = 16 * 1024 * 1024;
/** The length and the kind before a frame's body. */
const HEAD_BYTES = 5;
/** The stream number before an output frame's bytes. */
const STREAM_BYTES = 4;

/** The browser's first frame (`wire::Hello`, whose shape never changes). */
export interface Hello {
  protocol: number;
  app_version: string;
  build_id: string;
  client_kind: 'browser';
  client_id: string;
}

/** The engine's welcome (`wire::HelloAck`). */
export interface Welcome {
  type: 'welcome';
  protocol: number;
  engine_version: string;
  build_id: string;
  capabilities: string[];
  instance_id: string;
  pid: number;
  started_at: number;
  agents_running: number;
  /** The user's login service runs the engine (absent from an older engine: none). */
  starts_at_login?: boolean;
}

/** The engine's answer to the hello (`wire::ServerHello`). */
export type ServerHello = Welcome | { type: 'refused'; protocol: number; engine_version: string; reason: string };

/** What the browser asks after the hello (`wire::ClientRequest`). */
export type ClientRequest =
  /** `host`: another machine the serving engine reaches for the page (none: where the command's route sends it). */
  | { type: 'command'; command: Command; host?: string }
  | { type: 'subscribe' }
  /** The other machines' links now, then their changes and their events. */
  | { type: 'machines' }
  | { type: 'attach'; session_id: SessionId; stream: number }
  | { type: 'detach'; stream: number }
  | { type: 'ping' };

/** Every frame the browser sends after the hello (`wire::ClientFrame`). */
export interface ClientFrame {
  type: 'request';
  id: number;
  request: ClientRequest;
}

/** The engine's answer to one request (`wire::Answer`). */
export type Answer =
  | { type: 'ok'; reply: Reply }
  | { type: 'subscribed'; instance_id: string; seq: number }
  | { type: 'pong' }
  | { type: 'machines'; links: HostLink[] }
  | { type: 'error'; error: ApiError };

/** Why a terminal stream ended (`wire::StreamEnd`); a kind this page does not know is `other`. */
export type StreamEnd = 'ended' | 'behind' | 'detached' | 'other';

/**
 * What the engine sends after the hello (`wire::ServerFrame`). A kind this page does not know (a
 * newer engine's, or `{"type":"keepalive"}`) is not among them: `serverFrame` skips it.
 */
export type ServerFrame =
  | { type: 'reply'; id: number; answer: Answer }
  /** `host`: the other machine whose engine sent it (null: the serving engine's own). */
  | { type: 'event'; seq: number; event: EngineEvent; host: string | null }
  /** Another machine's link changed. */
  | { type: 'machine'; link: HostLink }
  /** What the page tells of the news the desktop notifies. */
  | { type: 'notice'; notice: PageNotice }
  | { type: 'events_lost'; missed: number }
  | { type: 'stream_ended'; stream: number; why: StreamEnd };

/** One frame as read: a message's JSON value, or a terminal's output. */
export type Incoming =
  | { kind: 'message'; value: unknown }
  | { kind: 'output'; stream: number; bytes: Uint8Array }
  /** A kind this page does not know (from a newer engine): skipped, as the Rust client does. */
  | { kind: 'other' };

/** Why a WebSocket message is not a frame this page can read: the connection is not to be trusted further. */
export type FrameProblem =
  | { problem: 'short'; bytes: number }
  | { problem: 'length'; says: number; carries: number }
  | { problem: 'too_large'; bytes: number }
  | { problem: 'output_without_stream' }
  | { problem: 'not_json' };

export type Decoded = { ok: true; frame: Incoming } | { ok: false; why: FrameProblem };

const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder('utf-8', { fatal: true });

function frame(kind: number, body: Uint8Array): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(HEAD_BYTES + body.length);
  const view = new DataView(bytes.buffer);
  view.setUint32(0, body.length + 1);
  bytes[4] = kind;
  bytes.set(body, HEAD_BYTES);
  return bytes;
}

/** A message frame of `value`'s JSON: the hello, a request (or, in a test, the engine's side). */
export function messageFrame(value: Hello | ClientFrame | object): Uint8Array<ArrayBuffer> {
  return frame(MESSAGE, utf8.encode(JSON.stringify(value)));
}

/** The frame of one request. */
export function requestFrame(id: number, request: ClientRequest): Uint8Array<ArrayBuffer> {
  const framed: ClientFrame = { type: 'request', id, request };
  return messageFrame(framed);
}

/** An output frame of `bytes` for `stream` (what the engine sends; the tests' stand-in uses it). */
export function outputFrame(stream: number, bytes: Uint8Array): Uint8Array<ArrayBuffer> {
  const body = new Uint8Array(STREAM_BYTES + bytes.length);
  new DataView(body.buffer).setUint32(0, stream);
  body.set(bytes, STREAM_BYTES);
  return frame(OUTPUT, body);
}

/**
 * Reads one WebSocket message as one whole frame. Its length must say exactly what the message
 * carries: a frame cut short or followed by more is refused, as is an empty one or one over the
 * limit. An output frame comes apart from its stream number without a copy of its bytes.
 */
export function decodeFrame(data: ArrayBuffer | Uint8Array): Decoded {
  const bytes = data instanceof Uint8Array ? data : new Uint8Array(data);
  if (bytes.length < HEAD_BYTES) return { ok: false, why: { problem: 'short', bytes: bytes.length } };
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const says = view.getUint32(0);
  if (says > MAX_FRAME_BYTES) return { ok: false, why: { problem: 'too_large', bytes: says } };
  if (says !== bytes.length - 4) return { ok: false, why: { problem: 'length', says, carries: bytes.length - 4 } };
  const kind = bytes[4];
  const body = bytes.subarray(HEAD_BYTES);
  if (kind === OUTPUT) {
    if (body.length < STREAM_BYTES) return { ok: false, why: { problem: 'output_without_stream' } };
    return { ok: true, frame: { kind: 'output', stream: view.getUint32(HEAD_BYTES), bytes: body.subarray(STREAM_BYTES) } };
  }
  if (kind !== MESSAGE) return { ok: true, frame: { kind: 'other' } };
  try {
    return { ok: true, frame: { kind: 'message', value: JSON.parse(fromUtf8.decode(body)) as unknown } };
  } catch {
    return { ok: false, why: { problem: 'not_json' } };
  }
}

/** A frame problem in words, for the console (never shown to the user as it is). */
export function frameProblemText(why: FrameProblem): string {
  switch (why.problem) {
    case 'short':
      return `a message of ${why.bytes} bytes is shorter than a frame's head`;
    case 'length':
      return `a frame that says it has ${why.says} bytes but carries ${why.carries}`;
    case 'too_large':
      return `a frame of ${why.bytes} bytes is over the limit of ${MAX_FRAME_BYTES}`;
    case 'output_without_stream':
      return 'an output frame without its stream number';
    case 'not_json':
      return 'a message frame that is not JSON';
  }
}

type Fields = Record<string, unknown>;

function isObject(value: unknown): value is Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}

/** The engine's answer to the hello, or null when the message is not one. */
export function serverHello(value: unknown): ServerHello | null {
  if (!isObject(value)) return null;
  if (value.type === 'welcome') {
    const ok =
      isCount(value.protocol) &&
      typeof value.engine_version === 'string' &&
      typeof value.build_id === 'string' &&
      Array.isArray(value.capabilities) &&
      typeof value.instance_id === 'string' &&
      isCount(value.agents_running);
    return ok ? (value as unknown as Welcome) : null;
  }
  if (value.type === 'refused') {
    const ok = isCount(value.protocol) && typeof value.engine_version === 'string' && typeof value.reason === 'string';
    return ok ? (value as unknown as ServerHello) : null;
  }
  return null;
}

function answer(value: unknown): Answer | null {
  if (!isObject(value)) return null;
  switch (value.type) {
    case 'ok':
      return isObject(value.reply) && typeof value.reply.type === 'string' ? (value as unknown as Answer) : null;
    case 'subscribed':
      return typeof value.instance_id === 'string' && isCount(value.seq) ? (value as unknown as Answer) : null;
    case 'pong':
      return { type: 'pong' };
    case 'machines':
      return Array.isArray(value.links) && value.links.every(isHostLink) ? (value as unknown as Answer) : null;
    case 'error':
      // Kept as the engine said it; `toApiError` makes it the window's `ApiError`.
      return isObject(value.error) ? (value as unknown as Answer) : null;
    default:
      return null;
  }
}

function isHostLink(value: unknown): value is HostLink {
  return isObject(value) && typeof value.destination === 'string' && isObject(value.link) && typeof value.link.state === 'string';
}

function isPageNotice(value: unknown): value is PageNotice {
  if (!isObject(value) || typeof value.place !== 'string') return false;
  if (value.type === 'close') return true;
  return value.type === 'show' && typeof value.title === 'string' && typeof value.body === 'string' && typeof value.tone === 'string' && typeof value.stays === 'boolean';
}

function streamEnd(value: unknown): StreamEnd {
  return value === 'ended' || value === 'behind' || value === 'detached' ? value : 'other';
}

/**
 * A message from the engine after the hello, or null for one this page skips: a kind it does not
 * know (`keepalive`, a newer engine's) or one whose fields are not what its kind carries (the Rust
 * client skips what it cannot read the same way).
 */
export function serverFrame(value: unknown): ServerFrame | null {
  if (!isObject(value)) return null;
  switch (value.type) {
    case 'reply': {
      const said = answer(value.answer);
      return isCount(value.id) && said ? { type: 'reply', id: value.id, answer: said } : null;
    }
    case 'event':
      return isCount(value.seq) && isObject(value.event) && typeof value.event.type === 'string'
        ? { type: 'event', seq: value.seq, event: value.event as unknown as EngineEvent, host: typeof value.host === 'string' ? value.host : null }
        : null;
    case 'machine':
      return isHostLink(value.link) ? { type: 'machine', link: value.link } : null;
    case 'notice':
      return isPageNotice(value.notice) ? { type: 'notice', notice: value.notice } : null;
    case 'events_lost':
      return isCount(value.missed) ? { type: 'events_lost', missed: value.missed } : null;
    case 'stream_ended':
      return isCount(value.stream) ? { type: 'stream_ended', stream: value.stream, why: streamEnd(value.why) } : null;
    default:
      return null;
  }
}
