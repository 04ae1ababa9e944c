//! Who makes the user's decisions, run for real over the engine's socket and
//! through the command line: a window the engine starts itself (as the
//! daemon does for a notification's click) answers a question; an agent, a
//! daemon it left (forked twice, `setsid`, environment cleared), and one
//! left behind after its keeper died cannot.

use crate::support;

use std::path::{Path, PathBuf};
use std::process::Command;

use support::*;
use switchboard_core::session::lineage;
use switchboard_core::signal::{ScanEvent, SignalKind};
use switchboard_core::{EngineEvent, SignalRecord, SignalState};

/// Answers the question whose id is in `ID_FILE` once it is there, over the
/// socket, as a process of its own: `ask.py SOCKET ID_FILE OUT ANSWER`;
/// the engine's reply goes to OUT.
const ASK: &str = r#"
import json, os, socket, sys, time
sock, id_file, out, answer = sys.argv[1:5]
while not (os.path.exists(id_file) and open(id_file).read().strip()):
    time.sleep(0.02)
signal_id = open(id_file).read().strip()
s = socket.socket(socket.AF_UNIX)
s.connect(sock)
command = {"type": "respond_to_signal", "signal_id": signal_id, "response": {"action": "answer", "answers": [answer]}}
s.sendall((json.dumps({"type": "command", "command": command}) + "\n").encode())
reply = s.makefile().readline()
with open(out + ".part", "w") as f:
    f.write(reply)
os.rename(out + ".part", out)
"#;

/// The command line, as a process of its own: `cli.sh APP DATA OUT AGENT`
/// edits the agent (the user's to decide) and writes its exit code and
/// what it said to OUT.
const CLI: &str = r#"
app="$1"; data="$2"; out="$3"; agent="$4"
env -u XDG_RUNTIME_DIR "$app" --data-dir "$data" agent edit "$agent" --isolation none > "$out.said" 2>&1
echo $? > "$out.part"
mv "$out.part" "$out"
"#;

fn python() -> String {
    let found = Command::new("sh").args(["-c", "command -v python3"]).output().unwrap();
    let path = String::from_utf8(found.stdout).unwrap().trim().to_owned();
    assert!(!path.is_empty(), "python3 is needed");
    path
}

/// Waits for a file a process writes whole (renamed into place); its text.
async fn written(path: &Path) -> String {
    wait_until(&format!("{} is written", path.display()), || path.exists()).await;
    std::fs::read_to_string(path).unwrap()
}

fn refused(reply: &str) -> bool {
    reply.contains("not_allowed")
}

struct Files {
    dir: PathBuf,
}

impl Files {
    fn at(&self, name: &str) -> String {
        self.dir.join(name).display().to_string()
    }
}

impl TestEngine {
    /// A shell agent that runs `plant`, then echoes each line typed to it, ready at `agent> `.
    async fn shell_agent(&self, name: &str, plant: &str) -> switchboard_core::Profile {
        let script = format!("{plant}\nwhile printf 'agent> '; read -r line; do echo \"got: $line\"; done");
        let spec = switchboard_core::ProfileSpec {
            ready_pattern: Some("agent> $".into()),
            ready_quiet_ms: 50,
            ..self.spec(name, "sh", &["-c", &script])
        };
        self.engine.create_profile(spec).await.unwrap()
    }

    async fn pending_clarification(&self) -> SignalRecord {
        self.events
            .wait_for("a pending clarification", |events| {
                events.iter().rev().find_map(|event| match event {
                    EngineEvent::SignalChanged { signal }
                        if signal.state == SignalState::Pending
                            && matches!(&signal.scan, ScanEvent::Signal { signal }
                                if signal.body.kind() == SignalKind::Clarification) =>
                    {
                        Some(signal.clone())
                    }
                    _ => None,
                })
            })
            .await
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_window_the_engine_started_answers_and_no_process_of_an_agent_can() {
    // Long enough for what an agent left to try its luck while its keeper ends it.
    let t = TestEngine::start_with(|config| config.kill_grace = std::time::Duration::from_secs(30)).await;
    let files = Files { dir: t.data_dir.join("identity") };
    std::fs::create_dir_all(&files.dir).unwrap();
    std::fs::write(files.at("ask.py"), ASK).unwrap();
    std::fs::write(files.at("cli.sh"), CLI).unwrap();
    let socket = switchboard_core::config::socket_path(&t.data_dir, None).display().to_string();
    let (python, app, data) = (python(), app_binary().display().to_string(), t.data_dir.display().to_string());
    let ask = |out: &str, answer: &str| {
        format!(
            "'{python}' '{}' '{socket}' '{}' '{}' '{answer}'",
            files.at("ask.py"),
            files.at("signal.id"),
            files.at(out)
        )
    };
    let cli = |out: &str| format!("sh '{}' '{app}' '{data}' '{}' asker", files.at("cli.sh"), files.at(out));

    // An agent asks a question; it, and a daemon it leaves (forked twice, in a
    // terminal session of its own, its environment cleared), try to answer it
    // themselves, over the socket and through the command line.
    let plant = format!(
        "printf '[CLARIFICATION_NEEDED]\\nquestions:\\n  - Which database?\\n[/CLARIFICATION_NEEDED]\\n'\n\
         ( setsid env -i sh -c \"{hidden_ask}; {hidden_cli}\" & )\n\
         {own_ask}\n{own_cli}",
        hidden_ask = ask("hidden.json", "hidden").replace('"', "\\\""),
        hidden_cli = cli("hidden-cli").replace('"', "\\\""),
        own_ask = ask("own.json", "own"),
        own_cli = cli("own-cli"),
    );
    let asker = t.shell_agent("asker", &plant).await;
    let (_session, output) = t.start_session(&asker).await;
    let question = t.pending_clarification().await;
    std::fs::write(files.at("signal.id"), question.id.to_string()).unwrap();

    // Another agent leaves a daemon that waits, then its keeper dies: the
    // daemon is re-parented to the engine, with nothing of its session.
    let leave = format!(
        "( setsid env -i sh -c \"trap '' HUP TERM; echo \\$\\$ > '{pid}'; until [ -e '{go}' ]; do sleep 0.02; done; {ask}; {cli}\" & )\n\
         exec sleep 1000",
        pid = files.at("left.pid"),
        go = files.at("go"),
        ask = ask("left.json", "left").replace('"', "\\\""),
        cli = cli("left-cli").replace('"', "\\\""),
    );
    let leaver = t.shell_agent("leaver", &leave).await;
    let (left_session, _) = t.start_session(&leaver).await;
    let keeper = pid_of(&left_session);
    let engine = std::process::id() as i32;
    let pid_file = files.dir.join("left.pid");
    let read_pid = || std::fs::read_to_string(&pid_file).ok()?.trim().parse::<i32>().ok();
    wait_until("the left daemon says its pid", || read_pid().is_some()).await;
    let daemon = read_pid().unwrap();
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(keeper as i32), nix::sys::signal::Signal::SIGKILL).unwrap();
    t.wait_for_end(&left_session.id).await;
    wait_until("the left daemon is re-parented to the engine", || {
        switchboard_core::session::process::read_stat(daemon).is_some_and(|stat| stat.ppid == engine)
    })
    .await;
    std::fs::write(files.at("go"), "").unwrap();

    // A third agent exits, leaving a daemon that ignores the hangup and
    // SIGTERM its keeper sends: it tries while the keeper waits to end it.
    let end = format!(
        "( setsid env -i sh -c \"trap '' HUP TERM; echo \\$\\$ > '{pid}'; until [ -e '{go}' ]; do sleep 0.02; done; {ask}; {cli}\" & )\n\
         until [ -s '{pid}' ]; do sleep 0.02; done; exit 0",
        pid = files.at("ended.pid"),
        go = files.at("go-ended"),
        ask = ask("ended.json", "ended").replace('"', "\\\""),
        cli = cli("ended-cli").replace('"', "\\\""),
    );
    let ender = t.shell_agent("ender", &end).await;
    let (ended_session, _) = t.start_session(&ender).await;
    let ended_keeper = pid_of(&ended_session) as i32;
    let ended_pid = files.dir.join("ended.pid");
    let read_ended = || std::fs::read_to_string(&ended_pid).ok()?.trim().parse::<i32>().ok();
    wait_until("the ender's daemon says its pid", || read_ended().is_some()).await;
    let leftover = read_ended().unwrap();
    let children_of = |parent: i32| -> Vec<i32> {
        std::fs::read_dir("/proc")
            .unwrap()
            .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<i32>().ok())
            .filter_map(switchboard_core::session::process::read_stat)
            .filter(|stat| stat.ppid == parent && !stat.is_zombie())
            .map(|stat| stat.pid)
            .collect()
    };
    wait_until("the ender's agent has exited, its keeper holding what it left", || {
        children_of(ended_keeper) == [leftover]
    })
    .await;
    std::fs::write(files.at("go-ended"), "").unwrap();

    for attempt in ["own.json", "hidden.json", "left.json", "ended.json"] {
        let reply = written(&files.dir.join(attempt)).await;
        assert!(refused(&reply), "{attempt}: {reply}");
    }
    for attempt in ["own-cli", "hidden-cli", "left-cli", "ended-cli"] {
        let code = written(&files.dir.join(attempt)).await;
        let said = std::fs::read_to_string(files.dir.join(format!("{attempt}.said"))).unwrap();
        assert_ne!(code.trim(), "0", "{attempt}: {said}");
        assert!(said.contains("process of an agent may not"), "{attempt}: {said}");
    }
    let signals = t.engine.list_signals().await.unwrap();
    let still = signals.iter().find(|signal| signal.id == question.id).unwrap();
    assert_eq!(still.state, SignalState::Pending, "still the user's to answer");

    // A window the engine starts itself, as the daemon does for a
    // notification's click: it is the engine's descendant, and the user's.
    // Before: refused as a process of an agent.
    let window = |script: String| {
        let mut command = Command::new("sh");
        command.args(["-c", &script]);
        let mut child = lineage::start_users_window(&mut command).unwrap();
        std::thread::spawn(move || child.wait());
    };
    window(cli("window-cli"));
    let code = written(&files.dir.join("window-cli")).await;
    let said = std::fs::read_to_string(files.dir.join("window-cli.said")).unwrap();
    assert_eq!(code.trim(), "0", "{said}");
    window(ask("window.json", "Postgres, from the window"));
    let reply = written(&files.dir.join("window.json")).await;
    assert!(reply.starts_with("{\"ok\""), "{reply}");
    // The agent receives the answer.
    output.wait_for_text("got: ").await;
    output.wait_for_text("Postgres, from the window").await;
}
