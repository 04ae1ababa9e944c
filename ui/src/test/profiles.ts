/**
 * Agent values for tests: an agent as the fake seeds it (a generic `bash` in /tmp with the
 * engine's defaults), as a spec to make it with or as the profile the engine keeps, with any
 * field overridden.
 */
import type { Profile, ProfileSpec } from '../lib/bindings';
import { SEEDED_SPEC } from '../lib/fakeBackend';

export function profileSpec(name: string, overrides: Partial<ProfileSpec> = {}): ProfileSpec {
  return { name, ...structuredClone(SEEDED_SPEC), ...overrides };
}

/** The profile `id`, named as its id unless told otherwise. */
export function profile(id: string, overrides: Partial<Profile> = {}): Profile {
  return { id, created_at: 0, ...profileSpec(id), ...overrides };
}
