//! Desktop notifications through the freedesktop notification service
//! (`org.freedesktop.Notifications` on the session bus, spoken with zbus):
//! the notices' [`Action`]s carried out, for the window and the daemon
//! alike. What to show, replace and close is decided by
//! `switchboard_core::notice` (pure); this module only speaks to the desktop.
//!
//! One thread holds one connection to the bus, made at the first
//! notification and again after the bus is lost, and carries the actions
//! out in order (a D-Bus call waits for the notification server, which the
//! engine and the window never do). The same connection hears the server's
//! signals: a click on a notification's action comes back through the
//! callback given at start as a [`Click`] on what the notification shows
//! now; a notification closed by the user or expired is forgotten, so the
//! next one in its slot shows anew rather than replacing nothing.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use futures_lite::StreamExt;
use switchboard_client::notice::{Action, Lasting, Notice, NoticeTarget, Slot, Urgency};
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};

/// The notification service's name, object and interface (the freedesktop
/// Desktop Notifications Specification).
const SERVICE: &str = "org.freedesktop.Notifications";
const OBJECT: &str = "/org/freedesktop/Notifications";

/// The key of a notification's one action: "default" is the one a server
/// invokes when the notification itself is clicked.
const DEFAULT_ACTION: &str = "default";

/// The app's desktop entry (`Switchboard.desktop`, as the package installs
/// it): a server may show the app's name and icon from it, and group by it.
const DESKTOP_ENTRY: &str = "Switchboard";

/// The app's icon, as each notification shows it (written beside the data:
/// a notification server reads an image by its path).
const ICON: &[u8] = include_bytes!("../../../icons/128x128.png");

/// A notification's action was chosen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Click {
    /// What the notification showed when it was clicked.
    pub target: NoticeTarget,
    /// The token the server gave for bringing a window to the front on the
    /// user's behalf (`XDG_ACTIVATION_TOKEN`), if it gave one.
    pub activation_token: Option<String>,
}

/// The notification thread's handle: actions go to it in order. When the
/// handle is dropped the thread ends (what it showed stays on screen).
pub struct DesktopNotifications {
    actions: UnboundedSender<Action>,
}

impl DesktopNotifications {
    /// Starts the notification thread. `icon`: the app's icon as a file
    /// (see [`write_icon`]); `on_click` runs on that thread for each click.
    pub fn start(
        icon: Option<PathBuf>,
        on_click: impl Fn(Click) + Send + 'static,
    ) -> std::io::Result<DesktopNotifications> {
        let (actions, received) = unbounded_channel();
        let runtime = tokio::runtime::Builder::new_current_thread().build()?;
        std::thread::Builder::new().name("notifications".into()).spawn(move || {
            runtime.block_on(serve(icon, Box::new(on_click), received));
        })?;
        Ok(DesktopNotifications { actions })
    }

    /// Hands the actions over, in order; false once the thread has ended.
    pub fn carry_out(&self, actions: Vec<Action>) -> bool {
        actions.into_iter().all(|action| self.actions.send(action).is_ok())
    }
}

/// Writes the app's icon among the data directory's run files, where the
/// notification server can read it; none if it cannot be written (the
/// notifications go without it, said in the log).
pub fn write_icon(data_dir: &Path) -> Option<PathBuf> {
    let icon = data_dir.join(switchboard_core::config::RUN_DIR).join("notification-icon.png");
    let written = switchboard_core::private::create_dir(icon.parent().expect("a file in a folder"))
        .and_then(|()| switchboard_core::private::write(&icon, ICON));
    match written {
        Ok(()) => Some(icon),
        Err(error) => {
            tracing::warn!(%error, "notifications go without the app's icon");
            None
        }
    }
}

/// Milliseconds since the epoch, as the notices count time.
pub fn now_millis() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64)
}

/// Minutes past midnight, local time (the system's time zone; UTC where it
/// cannot be read), for the notices' quiet hours.
pub fn local_minute_of_day() -> u16 {
    let now = jiff::Zoned::now();
    now.hour() as u16 * 60 + now.minute() as u16
}

/// The connection to the session bus, and what its notification server can do.
struct Bus {
    connection: zbus::Connection,
    /// The server's signals to this connection: clicks, activation tokens, closes.
    signals: zbus::MessageStream,
    /// The server reads markup in bodies: a "<" or "&" in a task's name
    /// would be taken for markup, so bodies go escaped.
    markup: bool,
}

impl Bus {
    /// Connects, follows the server's signals, and asks what it can do (which
    /// also finds out that a server is there, starting one the bus knows of).
    async fn connect() -> zbus::Result<Bus> {
        let connection = zbus::Connection::session().await?;
        let rule =
            zbus::MatchRule::builder().msg_type(zbus::message::Type::Signal).interface(SERVICE).path(OBJECT).build()?;
        let signals = zbus::MessageStream::for_match_rule(rule, &connection, None).await?;
        let capabilities: Vec<String> = connection
            .call_method(Some(SERVICE), OBJECT, Some(SERVICE), "GetCapabilities", &())
            .await?
            .body()
            .deserialize()?;
        let markup = capabilities.iter().any(|c| c == "body-markup");
        Ok(Bus { connection, signals, markup })
    }

    /// Shows `notice` in place of notification `replaces` (0: a new one);
    /// returns the notification's id.
    async fn show(
        &self,
        replaces: u32,
        notice: &Notice,
        urgency: Urgency,
        lasting: Lasting,
        icon: Option<&str>,
    ) -> zbus::Result<u32> {
        let body = if self.markup { notice.body_as_markup() } else { notice.body.clone() };
        let mut hints: HashMap<&str, zbus::Variant<'_>> = HashMap::new();
        hints.insert("urgency", zbus::Variant::U8(urgency_level(urgency)));
        hints.insert("desktop-entry", zbus::Variant::from(DESKTOP_ENTRY));
        if let Some(icon) = icon {
            hints.insert("image-path", zbus::Variant::from(icon));
        }
        let actions = [DEFAULT_ACTION, notice.action];
        let timeout = match lasting {
            Lasting::Transient(ms) => i32::try_from(ms).unwrap_or(i32::MAX),
            // 0: never expires (-1 would leave it to the server).
            Lasting::UntilHandled => 0,
        };
        let arguments = (
            "Switchboard",
            replaces,
            icon.unwrap_or(""),
            notice.title.as_str(),
            body.as_str(),
            &actions[..],
            hints,
            timeout,
        );
        self.connection
            .call_method(Some(SERVICE), OBJECT, Some(SERVICE), "Notify", &arguments)
            .await?
            .body()
            .deserialize()
    }

    async fn close(&self, id: u32) -> zbus::Result<()> {
        self.connection.call_method(Some(SERVICE), OBJECT, Some(SERVICE), "CloseNotification", &(id,)).await?;
        Ok(())
    }
}

/// The freedesktop urgency levels: 0 low, 1 normal, 2 critical.
fn urgency_level(urgency: Urgency) -> u8 {
    match urgency {
        Urgency::Low => 0,
        Urgency::Normal => 1,
        Urgency::Critical => 2,
    }
}

/// What the server said of a notification.
#[derive(Debug, PartialEq, Eq)]
enum Heard {
    /// Its action `key` was chosen.
    Invoked { id: u32, key: String },
    /// A token to raise a window with, sent just before the action.
    Token { id: u32, token: String },
    /// It went: expired, dismissed, or closed by the app.
    Closed { id: u32 },
}

fn heard(message: &zbus::Message) -> Option<Heard> {
    let header = message.header();
    let body = message.body();
    match header.member()?.as_str() {
        "ActionInvoked" => body.deserialize::<(u32, String)>().ok().map(|(id, key)| Heard::Invoked { id, key }),
        "ActivationToken" => body.deserialize::<(u32, String)>().ok().map(|(id, token)| Heard::Token { id, token }),
        "NotificationClosed" => body.deserialize::<(u32, u32)>().ok().map(|(id, _reason)| Heard::Closed { id }),
        _ => None,
    }
}

/// A notification on screen: its id (a new one in its slot replaces it in
/// place) and what its action opens.
struct OnScreen {
    id: u32,
    target: NoticeTarget,
}

/// What the thread does next: an action to carry out (none: the handle is
/// gone), or a signal from the bus (none: the connection ended).
enum Next {
    Action(Option<Action>),
    Signal(Option<zbus::Result<zbus::Message>>),
}

/// The notification thread: carries out the actions in order and hears the
/// server, until the handle is dropped.
async fn serve(icon: Option<PathBuf>, on_click: Box<dyn Fn(Click) + Send>, mut actions: UnboundedReceiver<Action>) {
    let icon = icon.as_deref().and_then(Path::to_str).map(str::to_owned);
    let mut bus: Option<Bus> = None;
    let mut on_screen: HashMap<Slot, OnScreen> = HashMap::new();
    let mut tokens: HashMap<u32, String> = HashMap::new();
    loop {
        let next = tokio::select! {
            action = actions.recv() => Next::Action(action),
            signal = next_signal(bus.as_mut()) => Next::Signal(signal),
        };
        match next {
            Next::Action(None) => return,
            Next::Action(Some(Action::Show { slot, notice, urgency, lasting })) => {
                if bus.is_none() {
                    bus = match Bus::connect().await {
                        Ok(bus) => Some(bus),
                        Err(error) => {
                            tracing::debug!(%error, "no desktop notification (is a notification server running?)");
                            continue;
                        }
                    };
                }
                let Some(connected) = bus.as_ref() else { continue };
                let replaces = on_screen.get(&slot).map_or(0, |shown| shown.id);
                match connected.show(replaces, &notice, urgency, lasting, icon.as_deref()).await {
                    Ok(id) => {
                        on_screen.insert(slot, OnScreen { id, target: notice.target });
                    }
                    Err(error) => {
                        tracing::debug!(%error, "the notification server did not show a notification");
                        // Asked again from the start at the next one.
                        bus = None;
                        on_screen.clear();
                    }
                }
            }
            Next::Action(Some(Action::Close { slot })) => {
                if let (Some(shown), Some(connected)) = (on_screen.remove(&slot), bus.as_ref()) {
                    tokens.remove(&shown.id);
                    if let Err(error) = connected.close(shown.id).await {
                        tracing::debug!(%error, "a notification could not be closed");
                    }
                }
            }
            Next::Signal(None) => {
                tracing::debug!("the session bus went; notifications connect again at the next one");
                bus = None;
                on_screen.clear();
                tokens.clear();
            }
            Next::Signal(Some(Err(error))) => tracing::debug!(%error, "an unreadable message from the bus"),
            Next::Signal(Some(Ok(message))) => match heard(&message) {
                Some(Heard::Invoked { id, key }) if key == DEFAULT_ACTION => {
                    if let Some(shown) = on_screen.values().find(|shown| shown.id == id) {
                        on_click(Click { target: shown.target.clone(), activation_token: tokens.remove(&id) });
                    }
                }
                Some(Heard::Token { id, token }) if on_screen.values().any(|shown| shown.id == id) => {
                    tokens.insert(id, token);
                }
                Some(Heard::Closed { id }) => {
                    on_screen.retain(|_, shown| shown.id != id);
                    tokens.remove(&id);
                }
                _ => {}
            },
        }
    }
}

/// The bus's next signal; never, without a connection.
async fn next_signal(bus: Option<&mut Bus>) -> Option<zbus::Result<zbus::Message>> {
    match bus {
        Some(bus) => bus.signals.next().await,
        None => std::future::pending().await,
    }
}
