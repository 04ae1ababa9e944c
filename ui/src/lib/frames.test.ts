import { describe, expect, it } from 'vitest';
import type { EngineEvent } from './bindings';
import { decodeFrame, messageFrame, MAX_FRAME_BYTES, outputFrame, requestFrame, serverFrame, serverHello, type Decoded } from './frames';

/** A frame written out byte by byte, as the engine's `Frame::encode` writes it. */
function bytes(...parts: (number[] | string)[]): Uint8Array {
  const out: number[] = [];
  for (const part of parts) out.push(...(typeof part === 'string' ? new TextEncoder().encode(part) : part));
  return new Uint8Array(out);
}

describe('decodeFrame', () => {
  it('reads one whole frame per message, and refuses one whose length is not what it carries', () => {
    const json = '{"type":"pong"}';
    const cases: [string, Uint8Array, Decoded][] = [
      ['a message frame', bytes([0, 0, 0, json.length + 1, 0], json), { ok: true, frame: { kind: 'message', value: { type: 'pong' } } }],
      [
        'an output frame: its stream number, then its raw bytes',
        bytes([0, 0, 0, 10, 1], [0, 0, 1, 2], '\x1b[31m'),
        { ok: true, frame: { kind: 'output', stream: 258, bytes: bytes('\x1b[31m') } },
      ],
      ['an output frame of no bytes (a stream number alone)', bytes([0, 0, 0, 5, 1, 0, 0, 0, 7]), { ok: true, frame: { kind: 'output', stream: 7, bytes: bytes() } }],
      ['a kind this page does not know', bytes([0, 0, 0, 3, 9, 1, 2]), { ok: true, frame: { kind: 'other' } }],
      ['a length longer than the message', bytes([0, 0, 0, 20, 0], '{}'), { ok: false, why: { problem: 'length', says: 20, carries: 3 } }],
      ['a length shorter than the message (two frames in one)', bytes([0, 0, 0, 2, 0], '{}'), { ok: false, why: { problem: 'length', says: 2, carries: 3 } }],
      ['an empty frame', bytes([0, 0, 0, 0]), { ok: false, why: { problem: 'short', bytes: 4 } }],
      ['a length of zero with a kind', bytes([0, 0, 0, 0, 0]), { ok: false, why: { problem: 'length', says: 0, carries: 1 } }],
      ['a frame over the limit', bytes([0xff, 0xff, 0xff, 0xff, 0]), { ok: false, why: { problem: 'too_large', bytes: 0xffffffff } }],
      ['an output frame cut before its stream number', bytes([0, 0, 0, 3, 1, 0, 0]), { ok: false, why: { problem: 'output_without_stream' } }],
      ['a message frame that is not JSON', bytes([0, 0, 0, 3, 0], '{x'), { ok: false, why: { problem: 'not_json' } }],
    ];
    for (const [what, message, decoded] of cases) {
      expect(decodeFrame(message), what).toEqual(decoded);
      // A WebSocket hands the page an ArrayBuffer: read the same.
      expect(decodeFrame(message.slice().buffer), `${what} (as an ArrayBuffer)`).toEqual(decoded);
    }
    expect(MAX_FRAME_BYTES).toBe(16 * 1024 * 1024);
  });

  it('reads back what it writes: a request as the engine reads it, output as the engine sends it', () => {
    const request = requestFrame(3, { type: 'attach', session_id: 's-1', stream: 9 });
    // `u32 BE length | u8 kind | body`, the length counting the kind and the body.
    const body = '{"type":"request","id":3,"request":{"type":"attach","session_id":"s-1","stream":9}}';
    expect(request).toEqual(bytes([0, 0, 0, body.length + 1, 0], body));
    expect(decodeFrame(messageFrame({ type: 'keepalive' }))).toEqual({ ok: true, frame: { kind: 'message', value: { type: 'keepalive' } } });
    const output = outputFrame(0x01020304, bytes('red\r\n'));
    expect(output).toEqual(bytes([0, 0, 0, 10, 1, 1, 2, 3, 4], 'red\r\n'));
    expect(decodeFrame(output)).toEqual({ ok: true, frame: { kind: 'output', stream: 0x01020304, bytes: bytes('red\r\n') } });
  });
});

describe('serverFrame', () => {
  it('reads what the engine pushes and answers, and skips kinds it does not know', () => {
    const event: EngineEvent = { type: 'profile_deleted', profile_id: 'p-1' };
    const cases: [string, unknown, ReturnType<typeof serverFrame>][] = [
      ['a reply', { type: 'reply', id: 4, answer: { type: 'ok', reply: { type: 'unit' } } }, { type: 'reply', id: 4, answer: { type: 'ok', reply: { type: 'unit' } } }],
      [
        'a refusal keeps the error as the engine said it',
        { type: 'reply', id: 5, answer: { type: 'error', error: { code: 'invalid_input', message: 'title: empty', field: 'title' } } },
        { type: 'reply', id: 5, answer: { type: 'error', error: { code: 'invalid_input', message: 'title: empty', field: 'title' } } },
      ],
      ['a pong', { type: 'reply', id: 6, answer: { type: 'pong' } }, { type: 'reply', id: 6, answer: { type: 'pong' } }],
      ['subscribed', { type: 'reply', id: 1, answer: { type: 'subscribed', instance_id: 'i', seq: 12 } }, { type: 'reply', id: 1, answer: { type: 'subscribed', instance_id: 'i', seq: 12 } }],
      ['an event', { type: 'event', seq: 13, event }, { type: 'event', seq: 13, event, host: null }],
      ['another machine’s event', { type: 'event', seq: 2, event, host: 'me@box' }, { type: 'event', seq: 2, event, host: 'me@box' }],
      ['a machine’s link', { type: 'machine', link: { destination: 'me@box', link: { state: 'connecting' } } }, { type: 'machine', link: { destination: 'me@box', link: { state: 'connecting' } } }],
      ['a machine’s link without its state is skipped', { type: 'machine', link: { destination: 'me@box' } }, null],
      ['the machines', { type: 'reply', id: 8, answer: { type: 'machines', links: [] } }, { type: 'reply', id: 8, answer: { type: 'machines', links: [] } }],
      [
        'a page notice',
        { type: 'notice', notice: { type: 'show', place: 'finished', tone: 'done', title: 'Task completed', body: '', opens: null, stays: false } },
        { type: 'notice', notice: { type: 'show', place: 'finished', tone: 'done', title: 'Task completed', body: '', opens: null, stays: false } },
      ],
      ['a place closed', { type: 'notice', notice: { type: 'close', place: 'app' } }, { type: 'notice', notice: { type: 'close', place: 'app' } }],
      ['a notice without its words is skipped', { type: 'notice', notice: { type: 'show', place: 'app' } }, null],
      ['machines that are not links are skipped', { type: 'reply', id: 8, answer: { type: 'machines', links: [3] } }, null],
      ['events lost', { type: 'events_lost', missed: 40 }, { type: 'events_lost', missed: 40 }],
      ['a stream that fell behind', { type: 'stream_ended', stream: 2, why: 'behind' }, { type: 'stream_ended', stream: 2, why: 'behind' }],
      ['a stream that ended for a reason this page does not know', { type: 'stream_ended', stream: 2, why: 'moved' }, { type: 'stream_ended', stream: 2, why: 'other' }],
      ['the keepalive is skipped', { type: 'keepalive' }, null],
      ['a newer engine’s kind is skipped', { type: 'geometry', stream: 1, rows: 3 }, null],
      ['an answer of a kind this page does not know is skipped', { type: 'reply', id: 7, answer: { type: 'maybe' } }, null],
      ['a reply without its id is skipped', { type: 'reply', answer: { type: 'pong' } }, null],
      ['an event that is no event is skipped', { type: 'event', seq: 1, event: 'x' }, null],
      ['not an object', [1, 2], null],
    ];
    for (const [what, value, read] of cases) expect(serverFrame(value), what).toEqual(read);
  });

  it('reads the engine’s answer to the hello', () => {
    const welcome = {
      type: 'welcome',
      protocol: 1,
      engine_version: '0.1.0',
      build_id: 'b',
      capabilities: ['events', 'terminals', 'ping'],
      instance_id: 'i',
      pid: 10,
      started_at: 1,
      agents_running: 2,
    };
    const refused = { type: 'refused', protocol: 2, engine_version: '0.2.0', reason: 'it speaks protocol 2' };
    const cases: [string, unknown, ReturnType<typeof serverHello>][] = [
      ['a welcome', welcome, welcome as ReturnType<typeof serverHello>],
      ['a refusal', refused, refused as ReturnType<typeof serverHello>],
      ['a welcome without its version', { ...welcome, engine_version: undefined }, null],
      ['anything else', { type: 'reply', id: 1 }, null],
    ];
    for (const [what, value, read] of cases) expect(serverHello(value), what).toEqual(read);
  });
});
