import { describe, expect, it } from 'vitest';
import { applyStorageEvent, hostStorageBanner, setAsideNote, storageBanner, type StorageState } from './storage';

const running = (problem: StorageState['problem']): StorageState => ({ dataDir: '/data', problem, atStartup: false });

describe('storage banner', () => {
  it.each<[string, StorageState | null, string | null]>([
    ['nothing while all is well', running(null), null],
    ['nothing before it is known', null, null],
    ['a full disk, and what to do', running({ kind: 'full' }), "The disk holding Switchboard's data (/data) is full. Free some space on it; Switchboard notices by itself within a second."],
    ['a read-only folder', running({ kind: 'read_only' }), "Switchboard's data folder (/data) cannot be written: it is read-only or not yours. Make it writable;"],
    ['another failure, with its detail', running({ kind: 'failing', detail: 'disk I/O error' }), 'Switchboard cannot write its data (/data): disk I/O error. Check the disk;'],
  ])('says %s', (_, state, start) => {
    const banner = storageBanner(state);
    if (start === null) expect(banner).toBeNull();
    else {
      expect(banner?.title).toBe('Switchboard cannot record its work');
      expect(banner?.advice.startsWith(start)).toBe(true);
    }
  });

  it.each<[string, StorageState['problem'], string]>([
    ['a full disk', { kind: 'full' }, '; what their hooks report may be lost until then.'],
    ['a read-only folder', { kind: 'read_only' }, '; what their hooks report may be lost until then.'],
    ['another failure', { kind: 'failing', detail: 'database is locked' }, ', and recorded once it can be.'],
  ])('says what may be lost meanwhile with %s', (_, problem, end) => {
    expect(storageBanner(running(problem))?.advice.endsWith(end)).toBe(true);
  });

  it('at start, says nothing was started and to restart', () => {
    const banner = storageBanner({ dataDir: '/data', problem: { kind: 'full' }, atStartup: true });
    expect(banner).toEqual({
      title: 'Switchboard could not open its data',
      advice: "The disk holding Switchboard's data (/data) is full. Free some space on it, then restart Switchboard. No agent was started.",
    });
  });

  it('follows the engine as writing fails and works again, but not once the engine could not start', () => {
    let state: StorageState | null = running(null);
    state = applyStorageEvent(state, { type: 'storage_changed', problem: { kind: 'full' } });
    expect(state).toEqual(running({ kind: 'full' }));
    state = applyStorageEvent(state, { type: 'storage_changed', problem: null });
    expect(state).toEqual(running(null));
    const startup: StorageState = { dataDir: '/data', problem: { kind: 'read_only' }, atStartup: true };
    expect(applyStorageEvent(startup, { type: 'storage_changed', problem: null })).toBe(startup);
    expect(applyStorageEvent(state, { type: 'profile_deleted', profile_id: 'p' })).toBe(state);
  });
});

describe('hook events set aside', () => {
  it.each<[number, string | null]>([
    [0, null],
    [1, '1 hook event saved while Switchboard was closed could not be read (cut short or garbled). Nothing else was lost; it is kept in /d/x.jsonl.'],
    [4, '4 hook events saved while Switchboard was closed could not be read (cut short or garbled). Nothing else was lost; they are kept in /d/x.jsonl.'],
  ])('%i set aside', (count, text) => {
    expect(setAsideNote({ ...running(null), setAside: { count, file: '/d/x.jsonl' } })).toBe(text);
  });

  it('survives the storage events that follow', () => {
    const state = { ...running(null), setAside: { count: 2, file: '/d/x.jsonl' } };
    const after = applyStorageEvent(state, { type: 'storage_changed', problem: { kind: 'full' } });
    expect(after?.setAside).toEqual({ count: 2, file: '/d/x.jsonl' });
  });
});

describe('another machine\'s storage banner', () => {
  it.each<[StorageState['problem'] & object, string]>([
    [{ kind: 'full' }, "The disk holding Switchboard's data on gpu is full."],
    [{ kind: 'read_only' }, "Switchboard's data folder on gpu cannot be written."],
    [{ kind: 'failing', detail: 'disk I/O error' }, 'Switchboard on gpu cannot write its data: disk I/O error.'],
  ])('names the machine, never this computer\'s folder: %j', (problem, cause) => {
    const banner = hostStorageBanner('gpu', problem);
    expect(banner.title).toBe('Switchboard on gpu cannot record its work');
    expect(banner.advice.startsWith(cause)).toBe(true);
    expect(banner.advice).toContain('This computer\'s data is not affected.');
    expect(banner.advice).not.toContain('/data');
  });
});
