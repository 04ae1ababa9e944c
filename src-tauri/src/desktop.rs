//! The app's presence outside its window: the tray icon with its menu and
//! counts, and desktop notifications. What to show, where, how insistently
//! and what to close is decided by `switchboard_core::notice` (pure), with the
//! user's settings, the local time and what the window shows; this module
//! hands it to the notification thread the daemon uses too
//! (`switchboard_daemon::notifications`), and brings the window up on what a
//! clicked notification shows. While this window follows the engine, the
//! daemon shows none of its own (see `switchboard_daemon::notices`).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use switchboard_api::OpenTarget;
use switchboard_client::notice::{Action, NoticeTarget, Notices, Slot, TrayCounts};
use switchboard_core::{EngineEvent, FollowedLog};
use switchboard_daemon::notifications::{Click, DesktopNotifications, local_minute_of_day, now_millis};

use tauri::image::Image;
use tauri::menu::{Menu, MenuItem, PredefinedMenuItem};
use tauri::tray::TrayIconBuilder;
use tauri::{AppHandle, Emitter, Manager, Wry};

/// The Tauri event that asks the UI to open a task (a notification was clicked).
pub const OPEN_TASK_EVENT: &str = "open-task";
/// The Tauri event that asks the UI to open a signal's dialog.
pub const OPEN_SIGNAL_EVENT: &str = "open-signal";
/// The Tauri event that asks the UI to open a loop.
pub const OPEN_LOOP_EVENT: &str = "open-loop";
/// The Tauri event that asks the UI whether to quit and stop every agent
/// (the tray's item): the window asks, naming the agents that run, and
/// calls `quit_and_stop_agents` once the user says so.
pub const ASK_QUIT_AND_STOP_EVENT: &str = "ask-quit-and-stop";
/// The Tauri event that tells the UI a second launch handed over what it
/// was asked to open: the UI takes it (`take_open_target`), so a hand-over
/// that comes before the UI listens is taken as it loads.
pub const OPEN_TARGET_EVENT: &str = "open-target";

pub struct Desktop {
    /// The notices of the window's own engine (none) and of each machine
    /// shown beside it (its destination), each from its engine's lists.
    notices: Mutex<HashMap<Option<String>, Notices>>,
    /// The event log entries the window follows now (none: it follows none).
    followed: Mutex<Option<FollowedLog>>,
    tray: Mutex<Option<Tray>>,
    /// The notification thread, started with the first notification.
    notifications: Mutex<Option<DesktopNotifications>>,
    icon: Option<PathBuf>,
    /// Made the first time the window is closed into the tray (it says so once).
    closed_once: PathBuf,
    /// What the window was started to open (`--open`), until the UI takes it.
    open_at_start: Mutex<Option<OpenTarget>>,
}

/// What the tray's items do beyond the window, handed down by the app: the
/// tray reaches the app and its engines only through these.
#[derive(Clone, Copy)]
pub struct TrayActions {
    /// Quits the window (the agents keep running).
    pub quit: fn(&AppHandle),
    /// Pauses (true) or resumes every queue.
    pub pause_all: fn(&AppHandle, bool),
}

/// The tray icon's id: the app keeps the icon, this looks it up on the main thread.
const TRAY_ID: &str = "main";

/// The tray's menu items and what they show. No handle on the icon itself: its handle is
/// reference-counted without atomics, and cloning or dropping one off the main thread raced
/// with the main thread's own (the engine's events arrive on other threads), so the icon is
/// only ever looked up and touched on the main thread.
struct Tray {
    status: MenuItem<Wry>,
    pause: MenuItem<Wry>,
    /// The counts shown; none while the tray says the engine stopped.
    shown: Option<TrayCounts>,
    all_paused: bool,
}

impl Desktop {
    /// `data_dir`: where the notifications' icon is written. The notices
    /// start from the engine's lists once the window reaches it. `open`:
    /// what the window was started to open, which the UI takes once loaded.
    pub fn new(data_dir: &Path, open: Option<OpenTarget>) -> Desktop {
        Desktop {
            notices: Mutex::new(HashMap::from([(None, Notices::default())])),
            followed: Mutex::new(None),
            tray: Mutex::new(None),
            notifications: Mutex::new(None),
            icon: switchboard_daemon::notifications::write_icon(data_dir),
            closed_once: data_dir.join(switchboard_core::config::RUN_DIR).join("closed-to-tray"),
            open_at_start: Mutex::new(open),
        }
    }

    /// What a second launch handed over, for the UI to take as the window's
    /// own `--open` (in its place if it was not taken yet).
    pub fn hand_over(&self, target: OpenTarget) {
        *self.open_at_start.lock().expect("never poisoned") = Some(target);
    }

    /// What the window was started to open, once: the UI asks when it has loaded.
    pub fn take_open_target(&self) -> Option<OpenTarget> {
        self.open_at_start.lock().expect("never poisoned").take()
    }

    /// The notices as an engine has things now (at each connection to it):
    /// `host` none for the window's own, else the machine shown beside it,
    /// whose notices follow this machine's settings (the user's quiet hours).
    pub fn set_notices(&self, app: &AppHandle, host: Option<&str>, mut notices: Notices) {
        let (counts, all_paused) = {
            let mut all = self.notices.lock().expect("never poisoned");
            if host.is_some()
                && let Some(own) = all.get(&None)
            {
                notices.set_settings(own.settings().clone());
            }
            all.insert(host.map(str::to_owned), notices);
            tally(&all)
        };
        self.show_counts(app, counts, all_paused);
    }

    /// A machine shown beside this one's cannot be reached, or left the
    /// window: its counts go from the tray (they come back with it).
    pub fn forget(&self, app: &AppHandle, host: Option<&str>) {
        let (counts, all_paused) = {
            let mut all = self.notices.lock().expect("never poisoned");
            if host.is_some() {
                all.remove(&host.map(str::to_owned));
            }
            tally(&all)
        };
        self.show_counts(app, counts, all_paused);
    }

    /// Whether the app has a tray icon to come back from.
    pub fn has_tray(&self) -> bool {
        self.tray.lock().expect("never poisoned").is_some()
    }

    /// The window was closed into the tray: said once, the first time.
    pub fn closed_to_tray(&self, app: &AppHandle) {
        if self.closed_once.exists() {
            return;
        }
        if let Err(error) = switchboard_core::private::write(&self.closed_once, b"") {
            tracing::debug!(%error, "could not note that the window was closed once");
        }
        let notice = switchboard_client::notice::Notice::closed_to_tray();
        let (urgency, lasting) = switchboard_client::notice::style(notice.kind);
        self.carry_out(app, vec![Action::Show { slot: Slot::App, notice, urgency, lasting }]);
    }

    pub fn set_followed(&self, followed: Option<FollowedLog>) {
        *self.followed.lock().expect("never poisoned") = followed;
    }

    /// Whether the window is sent this event (see `switchboard_core::flows::forwarded`).
    pub fn forwards(&self, event: &EngineEvent) -> bool {
        switchboard_client::events::forwarded(self.followed.lock().expect("never poisoned").as_ref(), event)
    }

    /// What the window shows now: the notices follow it (what the user looks
    /// at in a focused window is not notified, and its notification closes).
    pub fn set_viewing(&self, app: &AppHandle, viewing: &switchboard_core::Viewing) {
        let actions: Vec<Action> = (self.notices.lock().expect("never poisoned").values_mut())
            .flat_map(|notices| notices.set_viewing(viewing.clone()))
            .collect();
        self.carry_out(app, actions);
    }

    /// Follows an engine event: notifications shown, replaced or closed as
    /// the notices decide (the local time decides quiet hours), fresh tray
    /// counts.
    /// `host`: the machine shown beside this one's it came from (none: the
    /// window's own engine); this machine's settings hold for all.
    pub fn on_event(&self, app: &AppHandle, host: Option<&str>, event: &EngineEvent) {
        let (actions, (counts, all_paused)) = {
            let mut all = self.notices.lock().expect("never poisoned");
            let actions = match (host, event) {
                (Some(_), EngineEvent::SettingsChanged { .. }) => Vec::new(),
                (None, EngineEvent::SettingsChanged { settings }) => {
                    all.values_mut().for_each(|notices| notices.set_settings(settings.clone()));
                    Vec::new()
                }
                _ => match (all.get_mut(&host.map(str::to_owned)), host) {
                    // Another machine's notices say whose they are where they are about Switchboard itself.
                    (Some(notices), Some(host)) => switchboard_client::fleet::host_notices(
                        notices.follow(event, local_minute_of_day(), now_millis()),
                        host,
                    ),
                    (Some(notices), None) => notices.follow(event, local_minute_of_day(), now_millis()),
                    (None, _) => Vec::new(),
                },
            };
            (actions, tally(&all))
        };
        self.carry_out(app, actions);
        self.show_counts(app, counts, all_paused);
    }

    /// The engine cannot be reached: the tray says so instead of counts it
    /// can no longer vouch for (they come back with the engine).
    pub fn engine_lost(&self, app: &AppHandle) {
        let status = match self.tray.lock().expect("never poisoned").as_mut() {
            Some(tray) if tray.shown.is_some() => {
                tray.shown = None;
                tray.status.clone()
            }
            _ => return,
        };
        let label = switchboard_client::notice::ENGINE_STOPPED;
        let handle = app.clone();
        let posted = app.run_on_main_thread(move || {
            status.set_text(label).ok();
            set_tooltip(&handle, label);
        });
        if let Err(error) = posted {
            tracing::debug!(%error, "the tray could not be updated (the app is quitting)");
        }
    }

    /// The tray's counts and pause item, where they changed.
    fn show_counts(&self, app: &AppHandle, counts: TrayCounts, all_paused: bool) {
        let (status, pause) = match self.tray.lock().expect("never poisoned").as_mut() {
            Some(tray) => {
                let status = (tray.shown != Some(counts)).then(|| {
                    tray.shown = Some(counts);
                    (tray.status.clone(), counts.label())
                });
                let pause = (tray.all_paused != all_paused).then(|| {
                    tray.all_paused = all_paused;
                    (tray.pause.clone(), pause_label(all_paused))
                });
                (status, pause)
            }
            None => (None, None),
        };
        if status.is_none() && pause.is_none() {
            return;
        }
        // The tray lives on the main thread. Its setters wait for the main thread, and this
        // runs on the engine's: posted, never waited for, since at quit the main thread waits
        // for the engine to stop and the two would wait for each other forever.
        let handle = app.clone();
        let posted = app.run_on_main_thread(move || {
            if let Some((item, label)) = status {
                item.set_text(&label).ok();
                set_tooltip(&handle, &label);
            }
            if let Some((item, label)) = pause {
                item.set_text(label).ok();
            }
        });
        if let Err(error) = posted {
            tracing::debug!(%error, "the tray could not be updated (the app is quitting)");
        }
    }

    /// Hands the actions to the notification thread (D-Bus calls wait for
    /// the notification server), started with the first.
    fn carry_out(&self, app: &AppHandle, actions: Vec<Action>) {
        if actions.is_empty() {
            return;
        }
        let mut notifications = self.notifications.lock().expect("never poisoned");
        if notifications.is_none() {
            let app = app.clone();
            match DesktopNotifications::start(self.icon.clone(), move |click| on_click(&app, click)) {
                Ok(started) => *notifications = Some(started),
                Err(error) => {
                    tracing::warn!(%error, "could not start the notification thread");
                    return;
                }
            }
        }
        if notifications.as_ref().is_some_and(|shown| !shown.carry_out(actions)) {
            tracing::warn!("the notification thread has ended");
            *notifications = None;
        }
    }

    /// Builds the tray icon and menu; `actions` are what its items do to the
    /// app beyond the window. Without a tray (no status notifier on this
    /// desktop) the app works on without one.
    pub fn build_tray(&self, app: &AppHandle, actions: TrayActions) {
        let (counts, all_paused) = tally(&self.notices.lock().expect("never poisoned"));
        // A panel names the item by its title, which appindicator takes from
        // GLib's application name; unset, that is the binary's lower-case name.
        #[cfg(target_os = "linux")]
        glib::set_application_name("Switchboard");
        let built = (|| -> tauri::Result<Tray> {
            let status = MenuItem::with_id(app, "status", counts.label(), false, None::<&str>)?;
            let show = MenuItem::with_id(app, "show", "Open", true, None::<&str>)?;
            let pause = MenuItem::with_id(app, "pause", pause_label(all_paused), true, None::<&str>)?;
            let quit = MenuItem::with_id(app, "quit", "Quit Switchboard (agents keep running)", true, None::<&str>)?;
            let stop = MenuItem::with_id(app, "quit-and-stop", "Quit and stop all agents", true, None::<&str>)?;
            let separator = PredefinedMenuItem::separator(app)?;
            let menu = Menu::with_items(app, &[&status, &separator, &show, &pause, &separator, &quit, &stop])?;
            TrayIconBuilder::with_id(TRAY_ID)
                .icon(app_icon())
                .tooltip(format!("Switchboard: {}", counts.label()))
                .menu(&menu)
                .on_menu_event(move |app, event| match event.id().as_ref() {
                    "show" => show_window(app),
                    "pause" => toggle_pause_all(app, actions.pause_all),
                    "quit" => (actions.quit)(app),
                    // Asked in the window (shown for it, from the tray too): it names what runs.
                    "quit-and-stop" => open(app, ASK_QUIT_AND_STOP_EVENT, &()),
                    _ => {}
                })
                .build(app)?;
            Ok(Tray { status, pause, shown: Some(counts), all_paused })
        })();
        match built {
            Ok(tray) => *self.tray.lock().expect("never poisoned") = Some(tray),
            Err(error) => tracing::warn!(%error, "no tray icon"),
        }
    }
}

/// The tray icon's tooltip. On the main thread only (see `Tray`).
fn set_tooltip(app: &AppHandle, label: &str) {
    if let Some(icon) = app.tray_by_id(TRAY_ID) {
        icon.set_tooltip(Some(format!("Switchboard: {label}"))).ok();
    }
}

/// A notification was clicked: the window comes up on what it shows.
fn on_click(app: &AppHandle, click: Click) {
    match &click.target {
        NoticeTarget::Task(task) => open(app, OPEN_TASK_EVENT, task),
        NoticeTarget::Signal(signal) => open(app, OPEN_SIGNAL_EVENT, signal),
        NoticeTarget::Loop(id) => open(app, OPEN_LOOP_EVENT, id),
        NoticeTarget::Window => show_window(app),
    }
}

/// A second launch of the app: the window comes forward, on what that
/// launch was to open.
pub fn bring_forward(app: &AppHandle, target: Option<OpenTarget>) {
    match target {
        Some(target) => {
            app.state::<Desktop>().hand_over(target);
            open(app, OPEN_TARGET_EVENT, &());
        }
        None => show_window(app),
    }
}

/// The tray's counts over every machine the window shows, and whether every
/// queue of theirs is paused.
fn tally(all: &HashMap<Option<String>, Notices>) -> (TrayCounts, bool) {
    let counts = all.values().map(Notices::counts).fold(TrayCounts::default(), TrayCounts::and);
    (counts, all.values().all(Notices::all_paused))
}

fn pause_label(all_paused: bool) -> &'static str {
    if all_paused { "Resume all queues" } else { "Pause all queues" }
}

fn show_window(app: &AppHandle) {
    if let Some(window) = app.get_webview_window("main") {
        window.show().ok();
        window.unminimize().ok();
        window.set_focus().ok();
    }
}

fn open(app: &AppHandle, event: &str, id: &impl serde::Serialize) {
    show_window(app);
    if let Err(error) = app.emit(event, id) {
        tracing::warn!(%error, event, "asking the UI to open something failed");
    }
}

fn toggle_pause_all(app: &AppHandle, pause_all: fn(&AppHandle, bool)) {
    let Some(desktop) = app.try_state::<Desktop>() else { return };
    let pause = !tally(&desktop.notices.lock().expect("never poisoned")).1;
    pause_all(app, pause);
}

/// The app icon, drawn here: a rounded teal square with three rows of
/// sockets, like a telephone switchboard.
pub fn app_icon() -> Image<'static> {
    const SIZE: u32 = 32;
    let mut rgba = Vec::with_capacity((SIZE * SIZE * 4) as usize);
    for y in 0..SIZE {
        for x in 0..SIZE {
            let (fx, fy) = (x as f32 + 0.5, y as f32 + 0.5);
            // Rounded square: distance outside a square inset by the radius.
            let (r, half) = (7.0_f32, SIZE as f32 / 2.0);
            let dx = ((fx - half).abs() - (half - r - 1.0)).max(0.0);
            let dy = ((fy - half).abs() - (half - r - 1.0)).max(0.0);
            let inside = (dx * dx + dy * dy).sqrt() <= r;
            let socket = [9.0_f32, 16.0, 23.0]
                .iter()
                .any(|row| [9.0_f32, 16.0, 23.0].iter().any(|col| (fx - col).powi(2) + (fy - row).powi(2) <= 5.0));
            let pixel = match (inside, socket) {
                (false, _) => [0, 0, 0, 0],
                (true, true) => [0xf4, 0xf1, 0xe8, 0xff],
                (true, false) => [0x1f, 0x8a, 0x84, 0xff],
            };
            rgba.extend_from_slice(&pixel);
        }
    }
    Image::new_owned(rgba, SIZE, SIZE)
}
