//! `switchboard daemon --install` / `--uninstall`: a systemd user service
//! that starts the daemon at login. `--install` writes the unit
//! ([`UNIT_NAME`] in the user's systemd folder, [`unit_path`]) running this
//! very binary on the data directory, then has the user manager reload its
//! units and enable it; `--uninstall` disables and removes it. Where the user
//! manager cannot be reached (no session bus: over SSH, in CI), the unit is
//! still written or removed, and the user is told what to run in a session.
//!
//! The unit's text is the pure [`unit_text`]; systemd is reached only
//! through [`UserManager`], so tests write into a folder of their own and
//! never touch the user's session.

use std::ffi::OsStr;
use std::io::{self, Write};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};

use anyhow::{Context, Result};

/// The service's name, for `systemctl --user` as for its file.
pub const UNIT_NAME: &str = "switchboard.service";

/// What the unit runs: this binary, as the daemon, on one data directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DaemonUnit {
    /// The app's binary, absolute (systemd runs no program by a relative path).
    pub exe: PathBuf,
    /// The data directory, absolute: the one the user installed it for,
    /// whatever the service's environment would resolve.
    pub data_dir: PathBuf,
    /// Without the demo workspace (the user installed it with `--no-demo`).
    pub no_demo: bool,
}

/// Where the user's own systemd units live: `$XDG_CONFIG_HOME/systemd/user`,
/// else `$HOME/.config/systemd/user` (a relative `XDG_CONFIG_HOME` is
/// ignored, as the XDG base directory specification says). None without
/// either.
pub fn user_unit_dir(xdg_config_home: Option<&OsStr>, home: Option<&OsStr>) -> Option<PathBuf> {
    let config = match xdg_config_home.map(Path::new).filter(|dir| dir.is_absolute()) {
        Some(dir) => dir.to_path_buf(),
        None => Path::new(home.filter(|home| !home.is_empty())?).join(".config"),
    };
    Some(config.join("systemd").join("user"))
}

/// The unit file in `unit_dir`.
pub fn unit_path(unit_dir: &Path) -> PathBuf {
    unit_dir.join(UNIT_NAME)
}

/// Where `systemctl --user enable` links the unit for it to start at login.
pub fn enabled_link(unit_dir: &Path) -> PathBuf {
    unit_dir.join("default.target.wants").join(UNIT_NAME)
}

/// The unit's text. `Type=simple`: the daemon does not tell systemd when it
/// is ready, so the service counts as started once the process runs.
/// `KillMode=mixed`: stopping the service sends SIGTERM to the daemon alone,
/// which stops its agents as it always does (recorded as stopped, not found
/// interrupted later); whatever is left of the group when the daemon has
/// exited, or at the stop timeout, is killed, so no agent outlives it.
pub fn unit_text(unit: &DaemonUnit) -> String {
    let mut command = vec![
        exec_word(unit.exe.as_os_str(), Word::Program),
        "--data-dir".to_owned(),
        exec_word(unit.data_dir.as_os_str(), Word::Argument),
    ];
    if unit.no_demo {
        command.push("--no-demo".to_owned());
    }
    command.push("daemon".to_owned());
    format!(
        "# Written by `switchboard daemon --install`; `switchboard daemon --uninstall` removes it.\n\
         [Unit]\n\
         Description=Switchboard daemon: coding agents, their queues and loops, with no window\n\
         \n\
         [Service]\n\
         Type=simple\n\
         ExecStart={}\n\
         Restart=on-failure\n\
         KillMode=mixed\n\
         \n\
         [Install]\n\
         WantedBy=default.target\n",
        command.join(" ")
    )
}

/// How the unit's command line names `data_dir` (what a unit that starts
/// the engine on it holds).
pub fn names_data_dir(data_dir: &Path) -> String {
    format!("--data-dir {} ", exec_word(data_dir.as_os_str(), Word::Argument))
}

/// What a word of an `ExecStart=` command line is to systemd.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Word {
    /// The program's path: `%` specifiers are expanded in it, `$`
    /// variables are not.
    Program,
    /// An argument: both are expanded in it.
    Argument,
}

/// One word of an `ExecStart=` command line, written so that systemd reads
/// back exactly `word` (systemd.service, "Command lines"; systemd.syntax).
/// systemd unquotes and unescapes each word, then expands `%` specifiers in
/// it, and `$` variables in the arguments when it runs them: so `%` is
/// doubled everywhere, and `$` in arguments. A word with a blank, a quote or
/// a backslash in it is double-quoted, its backslashes and double quotes
/// escaped; a control character or a byte that is not UTF-8 is written
/// `\xNN`, which systemd reads back as that byte. The words are absolute
/// paths and the app's own flags, never a lone `;` (which systemd reads as
/// the end of a command).
fn exec_word(word: &OsStr, kind: Word) -> String {
    let bytes = word.as_bytes();
    let plain = |c: char| !(c.is_whitespace() || c.is_control() || matches!(c, '"' | '\'' | '\\'));
    let quoted = match std::str::from_utf8(bytes) {
        Ok(text) => text.is_empty() || !text.chars().all(plain),
        Err(_) => true,
    };
    let mut out = String::with_capacity(bytes.len() + 2);
    if quoted {
        out.push('"');
    }
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            match c {
                '%' => out.push_str("%%"),
                '$' if kind == Word::Argument => out.push_str("$$"),
                '\\' => out.push_str("\\\\"),
                '"' => out.push_str("\\\""),
                c if c.is_control() => {
                    let mut buffer = [0; 4];
                    for byte in c.encode_utf8(&mut buffer).bytes() {
                        out.push_str(&format!("\\x{byte:02x}"));
                    }
                }
                c => out.push(c),
            }
        }
        for byte in chunk.invalid() {
            out.push_str(&format!("\\x{byte:02x}"));
        }
    }
    if quoted {
        out.push('"');
    }
    out
}

/// Why `systemctl --user` did not do what it was asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SystemctlError {
    /// There is no `systemctl` to run.
    Missing,
    /// It ran and failed; what it said on stderr.
    Failed(String),
}

/// systemd's user manager, reached with `systemctl --user` ([`Systemctl`]),
/// or a stand-in in tests.
pub trait UserManager {
    /// Runs `systemctl --user ARGS`.
    fn systemctl(&mut self, args: &[&str]) -> Result<(), SystemctlError>;
}

/// The real user manager, through the `systemctl` on PATH.
pub struct Systemctl;

impl UserManager for Systemctl {
    fn systemctl(&mut self, args: &[&str]) -> Result<(), SystemctlError> {
        let output = Command::new("systemctl")
            .arg("--user")
            .args(args)
            .stdin(Stdio::null())
            .output()
            .map_err(|_| SystemctlError::Missing)?;
        if output.status.success() {
            Ok(())
        } else {
            Err(SystemctlError::Failed(String::from_utf8_lossy(&output.stderr).trim().to_owned()))
        }
    }
}

/// `daemon --install` and `--uninstall` from the command line: the binary's
/// own path and the user's folders read here, at the edge.
pub fn run(install: bool, data_dir: &Path, no_demo: bool, out: &mut impl Write) -> Result<ExitCode> {
    let unit_dir = user_unit_dir(std::env::var_os("XDG_CONFIG_HOME").as_deref(), std::env::var_os("HOME").as_deref())
        .context("cannot tell where your systemd units live: neither XDG_CONFIG_HOME nor HOME is set")?;
    if !install {
        return uninstall(&unit_dir, &mut Systemctl, out);
    }
    let exe = std::env::current_exe().context("cannot tell where this program is installed")?;
    let unit = DaemonUnit { exe, data_dir: data_dir.to_path_buf(), no_demo };
    self::install(&unit_dir, &unit, &mut Systemctl, out)
}

/// Writes the unit into `unit_dir` (replacing one there), then has the user
/// manager reload its units and enable it. Succeeds when the user manager
/// cannot be reached, saying what to run where it can; fails (exit 1) when
/// it can be and refuses to enable the unit.
pub fn install(
    unit_dir: &Path,
    unit: &DaemonUnit,
    manager: &mut impl UserManager,
    out: &mut impl Write,
) -> Result<ExitCode> {
    anyhow::ensure!(unit.exe.is_absolute(), "the program's path {} is not absolute", unit.exe.display());
    anyhow::ensure!(unit.data_dir.is_absolute(), "the data directory {} is not absolute", unit.data_dir.display());
    let path = unit_path(unit_dir);
    let replaced = path.exists();
    write_unit(&path, &unit_text(unit))
        .with_context(|| format!("could not write the service to {}", path.display()))?;
    let data_dir = unit.data_dir.display();
    writeln!(out, "{} the systemd user service {}.", if replaced { "Updated" } else { "Wrote" }, path.display())?;
    if manager.systemctl(&["daemon-reload"]).is_err() {
        writeln!(out, "systemd's user manager could not be reached from here, so the service is not enabled yet.")?;
        writeln!(out, "To have the daemon start at each login on {data_dir}, run this in your desktop session:")?;
        writeln!(out, "  systemctl --user daemon-reload && systemctl --user enable {UNIT_NAME}")?;
        return Ok(ExitCode::SUCCESS);
    }
    if let Err(error) = manager.systemctl(&["enable", UNIT_NAME]) {
        writeln!(out, "systemd would not enable the service, so the daemon will not start at login.")?;
        if let SystemctlError::Failed(said) = error
            && !said.is_empty()
        {
            writeln!(out, "systemctl said: {said}")?;
        }
        return Ok(ExitCode::from(switchboard_cli::EXIT_FAILED));
    }
    writeln!(out, "It is enabled: the daemon will start at each login and run the agents on {data_dir}.")?;
    writeln!(out, "It is not started now; to start it: systemctl --user start {UNIT_NAME}")?;
    writeln!(out, "Logging out of your last session stops it and its agents, unless you run: loginctl enable-linger")?;
    Ok(ExitCode::SUCCESS)
}

/// Disables the unit and removes it from `unit_dir`. A daemon it started is
/// left running (stopping it would stop its agents): the user is told how to
/// stop it. Nothing installed is no error.
pub fn uninstall(unit_dir: &Path, manager: &mut impl UserManager, out: &mut impl Write) -> Result<ExitCode> {
    let path = unit_path(unit_dir);
    let link = enabled_link(unit_dir);
    let installed = path.exists();
    let linked = link.symlink_metadata().is_ok();
    if !installed && !linked {
        writeln!(out, "No systemd user service was installed ({} is not there); nothing to remove.", path.display())?;
        return Ok(ExitCode::SUCCESS);
    }
    // Disabled first: systemctl reads the unit's [Install] section to unlink it.
    if let Err(error) = manager.systemctl(&["disable", UNIT_NAME]) {
        tracing::debug!(?error, "systemctl --user disable failed; the login link is removed by hand");
    }
    let running = manager.systemctl(&["is-active", "--quiet", UNIT_NAME]).is_ok();
    // Unlinked by hand where systemctl could not, so nothing dangles.
    if let Err(error) = std::fs::remove_file(&link)
        && error.kind() != io::ErrorKind::NotFound
    {
        return Err(error).with_context(|| format!("could not remove {}", link.display()));
    }
    if let Err(error) = std::fs::remove_file(&path)
        && error.kind() != io::ErrorKind::NotFound
    {
        return Err(error).with_context(|| format!("could not remove {}", path.display()));
    }
    let reloaded = manager.systemctl(&["daemon-reload"]).is_ok();
    writeln!(out, "Removed the systemd user service {}: the daemon will no longer start at login.", path.display())?;
    if running {
        writeln!(out, "The daemon it started still runs with its agents; `switchboard daemon --stop` stops it.")?;
    }
    if !reloaded {
        writeln!(
            out,
            "systemd's user manager could not be reached from here; it forgets the service at your next login."
        )?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Writes the unit whole or not at all: a unit cut short by a crash would
/// be read at the next login.
fn write_unit(path: &Path, text: &str) -> io::Result<()> {
    let dir = path.parent().expect("a unit's path is inside the unit folder");
    std::fs::create_dir_all(dir)?;
    let temporary = dir.join(format!(".{UNIT_NAME}.new"));
    std::fs::write(&temporary, text)?;
    std::fs::rename(&temporary, path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsString;
    use std::os::unix::ffi::OsStringExt;

    fn unit(exe: &str, data_dir: &str) -> DaemonUnit {
        DaemonUnit { exe: exe.into(), data_dir: data_dir.into(), no_demo: false }
    }

    fn exec_start(text: &str) -> &str {
        text.lines().find_map(|line| line.strip_prefix("ExecStart=")).expect("the unit has an ExecStart line")
    }

    #[test]
    fn each_word_of_the_command_is_written_as_systemd_reads_it_back() {
        use Word::{Argument, Program};
        let cases: &[(&[u8], Word, &str)] = &[
            (b"/usr/bin/switchboard", Program, "/usr/bin/switchboard"),
            (b"/home/ann/My Apps/switchboard", Program, "\"/home/ann/My Apps/switchboard\""),
            (b"/data/100%/sb", Argument, "/data/100%%/sb"),
            (b"/apps/100%/sb", Program, "/apps/100%%/sb"),
            (b"/data/%h", Argument, "/data/%%h"),
            (b"/data/$HOME", Argument, "/data/$$HOME"),
            (b"/data/${HOME}", Argument, "/data/$${HOME}"),
            // No variable is expanded in the program's path.
            (b"/apps/$HOME/sb", Program, "/apps/$HOME/sb"),
            (b"/a b/50% $x", Argument, "\"/a b/50%% $$x\""),
            (b"/tab\there", Argument, "\"/tab\\x09here\""),
            (b"/line\nbreak", Program, "\"/line\\x0abreak\""),
            (b"/say \"hi\"", Argument, "\"/say \\\"hi\\\"\""),
            (b"/it's", Argument, "\"/it's\""),
            (b"/back\\slash", Argument, "\"/back\\\\slash\""),
            (b"/caf\xc3\xa9", Argument, "/caf\u{e9}"),
            (b"/not\xffutf8", Program, "\"/not\\xffutf8\""),
            (b"", Argument, "\"\""),
        ];
        for &(word, kind, written) in cases {
            let word = OsString::from_vec(word.to_vec());
            assert_eq!(exec_word(&word, kind), written, "{word:?} as {kind:?}");
        }
    }

    #[test]
    fn the_unit_runs_this_binary_as_the_daemon_on_the_data_directory() {
        let text = unit_text(&unit("/opt/Switch Board/switchboard", "/home/ann/100% data"));
        assert_eq!(exec_start(&text), "\"/opt/Switch Board/switchboard\" --data-dir \"/home/ann/100%% data\" daemon");
        for line in ["Type=simple", "Restart=on-failure", "KillMode=mixed", "WantedBy=default.target"] {
            assert!(text.lines().any(|l| l == line), "{line} missing from:\n{text}");
        }
        assert!(text.lines().any(|l| l.starts_with("Description=Switchboard")));
        let text = unit_text(&DaemonUnit { no_demo: true, ..unit("/usr/bin/switchboard", "/d") });
        assert_eq!(exec_start(&text), "/usr/bin/switchboard --data-dir /d --no-demo daemon");
    }

    #[test]
    fn the_unit_folder_follows_xdg_config_home_else_home() {
        let os = |s: &'static str| Some(OsStr::new(s));
        assert_eq!(user_unit_dir(os("/cfg"), os("/home/ann")), Some("/cfg/systemd/user".into()));
        assert_eq!(user_unit_dir(None, os("/home/ann")), Some("/home/ann/.config/systemd/user".into()));
        // A relative XDG_CONFIG_HOME is to be ignored.
        assert_eq!(user_unit_dir(os("cfg"), os("/home/ann")), Some("/home/ann/.config/systemd/user".into()));
        assert_eq!(user_unit_dir(os(""), os("/home/ann")), Some("/home/ann/.config/systemd/user".into()));
        assert_eq!(user_unit_dir(None, None), None);
        assert_eq!(user_unit_dir(None, os("")), None);
    }

    /// A user manager that answers as told and notes what it was asked.
    struct Manager {
        reachable: bool,
        refuses: Option<&'static str>,
        active: bool,
        asked: Vec<String>,
    }

    impl Manager {
        fn reachable() -> Self {
            Manager { reachable: true, refuses: None, active: false, asked: Vec::new() }
        }
        fn unreachable() -> Self {
            Manager { reachable: false, ..Manager::reachable() }
        }
    }

    impl UserManager for Manager {
        fn systemctl(&mut self, args: &[&str]) -> Result<(), SystemctlError> {
            let asked = args.join(" ");
            self.asked.push(asked.clone());
            if !self.reachable {
                return Err(SystemctlError::Failed("Failed to connect to bus: No medium found".into()));
            }
            if self.refuses.is_some_and(|refused| asked.starts_with(refused)) {
                return Err(SystemctlError::Failed("Access denied".into()));
            }
            if args.first() == Some(&"is-active") && !self.active {
                return Err(SystemctlError::Failed(String::new()));
            }
            Ok(())
        }
    }

    fn said(out: &[u8]) -> String {
        String::from_utf8(out.to_vec()).unwrap()
    }

    /// The real binary to run, at a path with a space, a percent sign and a
    /// dollar sign in it (a link to this test's own program).
    fn awkward_exe(root: &Path) -> PathBuf {
        let dir = root.join("Apps 100% $HOME");
        std::fs::create_dir_all(&dir).unwrap();
        let exe = dir.join("switch board");
        std::os::unix::fs::symlink(std::env::current_exe().unwrap(), &exe).unwrap();
        exe
    }

    /// Asks systemd itself whether it accepts the unit as a user unit (its
    /// syntax, its specifiers, its program there and executable), when
    /// systemd-analyze is on this machine. Returns whether it could ask.
    fn systemd_accepts(unit_file: &Path, scratch: &Path) -> bool {
        let runtime = scratch.join("runtime");
        std::fs::create_dir_all(&runtime).unwrap();
        let output = match Command::new("systemd-analyze")
            .args(["--user", "verify"])
            .arg(unit_file)
            // A user manager of its own: runtime and configuration in the scratch folder.
            .env("XDG_RUNTIME_DIR", &runtime)
            .env("XDG_CONFIG_HOME", scratch.join("config"))
            .output()
        {
            Ok(output) => output,
            Err(error) if error.kind() == io::ErrorKind::NotFound => {
                // CI installs systemd (scripts/setup.sh): there, not verifying is a failure.
                assert!(
                    std::env::var_os("CI").is_none(),
                    "systemd-analyze is missing: CI must verify the unit with systemd itself"
                );
                eprintln!("systemd-analyze is not installed: the unit was checked by its text only");
                return false;
            }
            Err(error) => panic!("running systemd-analyze: {error}"),
        };
        let stderr = String::from_utf8_lossy(&output.stderr);
        // It exits 0 after warnings (an unknown key, a bad value ignored): none are allowed.
        assert!(output.status.success() && stderr.trim().is_empty(), "systemd refuses the unit:\n{stderr}");
        true
    }

    #[test]
    fn install_writes_a_unit_systemd_accepts_and_says_how_to_enable_it_without_a_session() {
        let scratch = tempfile::tempdir().unwrap();
        let unit_dir = scratch.path().join("config").join("systemd").join("user");
        let data_dir = scratch.path().join("data 50% $USER");
        let unit = DaemonUnit { exe: awkward_exe(scratch.path()), data_dir: data_dir.clone(), no_demo: false };
        let (mut manager, mut out) = (Manager::unreachable(), Vec::new());

        let code = install(&unit_dir, &unit, &mut manager, &mut out).unwrap();

        assert_eq!(code, ExitCode::SUCCESS);
        let path = unit_dir.join("switchboard.service");
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text, unit_text(&unit));
        assert_eq!(
            exec_start(&text),
            format!(
                "\"{}/Apps 100%% $HOME/switch board\" --data-dir \"{}/data 50%% $$USER\" daemon",
                scratch.path().display(),
                scratch.path().display()
            )
        );
        let said = said(&out);
        assert!(said.contains(&format!("Wrote the systemd user service {}.", path.display())), "{said}");
        assert!(said.contains("not enabled yet"), "{said}");
        assert!(said.contains("systemctl --user daemon-reload && systemctl --user enable switchboard.service"));
        assert_eq!(manager.asked, ["daemon-reload"]);
        if systemd_accepts(&path, scratch.path()) {
            eprintln!("systemd-analyze verify accepted the unit");
        }
        // Nothing but the unit is left in its folder.
        let names: Vec<_> = std::fs::read_dir(&unit_dir).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, ["switchboard.service"]);
    }

    #[test]
    fn install_enables_the_unit_where_the_user_manager_answers_and_replaces_an_older_one() {
        let scratch = tempfile::tempdir().unwrap();
        let unit_dir = scratch.path().join("systemd/user");
        std::fs::create_dir_all(&unit_dir).unwrap();
        std::fs::write(unit_dir.join(UNIT_NAME), "[Service]\nExecStart=/old/switchboard daemon\n").unwrap();
        let unit = unit("/usr/bin/switchboard", "/home/ann/.local/share/switchboard");
        let (mut manager, mut out) = (Manager::reachable(), Vec::new());

        let code = install(&unit_dir, &unit, &mut manager, &mut out).unwrap();

        assert_eq!(code, ExitCode::SUCCESS);
        assert_eq!(manager.asked, ["daemon-reload", "enable switchboard.service"]);
        assert_eq!(std::fs::read_to_string(unit_dir.join(UNIT_NAME)).unwrap(), unit_text(&unit));
        let said = said(&out);
        assert!(said.starts_with("Updated the systemd user service"), "{said}");
        assert!(said.contains("start at each login and run the agents on /home/ann/.local/share/switchboard"));
        assert!(said.contains("systemctl --user start switchboard.service"), "{said}");
    }

    #[test]
    fn install_fails_when_systemd_will_not_enable_the_unit() {
        let scratch = tempfile::tempdir().unwrap();
        let mut manager = Manager { refuses: Some("enable"), ..Manager::reachable() };
        let mut out = Vec::new();

        let code = install(scratch.path(), &unit("/usr/bin/switchboard", "/d"), &mut manager, &mut out).unwrap();

        assert_eq!(code, ExitCode::from(switchboard_cli::EXIT_FAILED));
        let said = said(&out);
        assert!(said.contains("the daemon will not start at login"), "{said}");
        assert!(said.contains("systemctl said: Access denied"), "{said}");
    }

    #[test]
    fn install_refuses_relative_paths() {
        let scratch = tempfile::tempdir().unwrap();
        let mut out = Vec::new();
        for unit in [unit("switchboard", "/d"), unit("/usr/bin/switchboard", "data")] {
            assert!(install(scratch.path(), &unit, &mut Manager::reachable(), &mut out).is_err());
        }
        assert!(!unit_path(scratch.path()).exists());
    }

    #[test]
    fn uninstall_disables_and_removes_the_unit_and_leaves_a_running_daemon_be() {
        let scratch = tempfile::tempdir().unwrap();
        let unit_dir = scratch.path();
        install(unit_dir, &unit("/usr/bin/switchboard", "/d"), &mut Manager::reachable(), &mut Vec::new()).unwrap();
        let mut manager = Manager { active: true, ..Manager::reachable() };
        let mut out = Vec::new();

        let code = uninstall(unit_dir, &mut manager, &mut out).unwrap();

        assert_eq!(code, ExitCode::SUCCESS);
        assert!(!unit_path(unit_dir).exists());
        assert_eq!(
            manager.asked,
            ["disable switchboard.service", "is-active --quiet switchboard.service", "daemon-reload"]
        );
        let said = said(&out);
        assert!(said.contains("will no longer start at login"), "{said}");
        assert!(said.contains("still runs with its agents; `switchboard daemon --stop` stops it"), "{said}");
    }

    #[test]
    fn uninstall_without_a_session_removes_the_unit_and_its_login_link() {
        let scratch = tempfile::tempdir().unwrap();
        let unit_dir = scratch.path();
        install(unit_dir, &unit("/usr/bin/switchboard", "/d"), &mut Manager::reachable(), &mut Vec::new()).unwrap();
        // As `systemctl --user enable` left it.
        std::fs::create_dir_all(unit_dir.join("default.target.wants")).unwrap();
        std::os::unix::fs::symlink(unit_path(unit_dir), enabled_link(unit_dir)).unwrap();
        let mut out = Vec::new();

        let code = uninstall(unit_dir, &mut Manager::unreachable(), &mut out).unwrap();

        assert_eq!(code, ExitCode::SUCCESS);
        assert!(!unit_path(unit_dir).exists());
        assert!(enabled_link(unit_dir).symlink_metadata().is_err());
        let said = said(&out);
        assert!(said.contains("will no longer start at login"), "{said}");
        assert!(said.contains("forgets the service at your next login"), "{said}");
    }

    #[test]
    fn uninstall_with_nothing_installed_says_so_and_succeeds() {
        let scratch = tempfile::tempdir().unwrap();
        let (mut manager, mut out) = (Manager::reachable(), Vec::new());

        let code = uninstall(scratch.path(), &mut manager, &mut out).unwrap();

        assert_eq!(code, ExitCode::SUCCESS);
        assert!(manager.asked.is_empty());
        assert!(said(&out).starts_with("No systemd user service was installed"), "{}", said(&out));
    }
}
