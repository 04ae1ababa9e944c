/**
 * The room of the window's state about the other machines whose agents the window shows (their
 * engines over SSH): the window's link to each, whether each can write its data, and adding,
 * reaching and forgetting them.
 */
import type { HostLink, StorageProblem } from './bindings';
import { logFailure } from './errors';
import { hostReloadsOn } from './engineLink';
import { upsertHostLink, withHostStorage } from './hosts';
import { initialSelection } from './model';
import { WorktreesState } from './appWorktrees.svelte';

export abstract class MachinesState extends WorktreesState {
  /**
   * The machine whose engine the window shows when not this one (an SSH destination, as
   * `switchboard --host` was given); null for this machine, and until the app's info is in.
   * Its folders are not this desktop's: the agent form browses them through the engine.
   */
  host: string | null = $state(null);
  /**
   * The other machines the window shows agents of, each with the window's link to it now, in
   * the order attached (empty until listed; a machine the window shows no agent of is listed too).
   */
  hostLinks: HostLink[] = $state.raw([]);
  /** The other machines shown beside this one's that cannot write their data now, with why. */
  hostStorage: Record<string, StorageProblem> = $state.raw({});

  /**
   * Lists the machines attached; without them the other machines' agents still show, unmarked
   * when their machine drops.
   */
  protected loadHostLinks(): void {
    void this.backend.attachedHosts().then(
      (links) => {
        // A link heard meanwhile is newer than the list.
        const heard = this.hostLinks;
        this.hostLinks = heard.reduce(upsertHostLink, links);
        // Whether each machine reached can write its data now (later changes come as its events).
        for (const { destination, link } of this.hostLinks) {
          if (link.state !== 'connected') continue;
          void this.backend
            .machine(destination)
            .storageStatus()
            .then((status) => (this.hostStorage = withHostStorage(this.hostStorage, destination, status.problem)), logFailure('storage_status'));
        }
      },
      logFailure('attached_hosts'),
    );
  }

  /**
   * Another machine's link changed: kept, and when the machine is reached again (or for the
   * first time since the window loaded) the window loads anew, as for its own engine, since its
   * lists were joined without that machine's news.
   */
  protected followHostLink(link: HostLink): void {
    const before = this.hostLinks.find((l) => l.destination === link.destination)?.link ?? null;
    this.hostLinks = upsertHostLink(this.hostLinks, link);
    if (!hostReloadsOn(before, link.link)) return;
    // A machine just added in the Machines view: the window loads anew once the user leaves it.
    if (this.machinesOpen) this.reloadOnLeavingMachines = true;
    else this.backend.reloadWindow();
  }

  /**
   * A machine left the list: its link and its agents leave the window (they go on working
   * there; adding the machine again shows them again).
   */
  forgetHost(destination: string): void {
    this.hostLinks = this.hostLinks.filter((l) => l.destination !== destination);
    // Its storage problem is no longer this window's to show.
    this.hostStorage = withHostStorage(this.hostStorage, destination, null);
    const gone = this.model.profiles.filter((p) => p.host === destination).map((p) => p.id);
    if (gone.length === 0) return;
    this.model = {
      profiles: this.model.profiles.filter((p) => !gone.includes(p.id)),
      sessions: this.model.sessions.filter((s) => !gone.includes(s.profile_id)),
    };
    if (this.selection !== null && this.selectedAgent === undefined) this.selection = initialSelection(this.model);
  }

  /** Try to reach another machine again now; rejects with an ApiError. */
  connectHost(destination: string): Promise<void> {
    return this.backend.connectHost(destination);
  }
}
