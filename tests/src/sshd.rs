//! A real OpenSSH server for one test or benchmark: on 127.0.0.1 at a free
//! port, with a throwaway host key and user key, and an ssh configuration
//! that reaches it as `testhost` with the test's own key and known-hosts
//! file (`ssh -F`, given to the app as `SWITCHBOARD_SSH`). Sessions it runs
//! get `XDG_DATA_HOME` of their own: the "other machine"'s data directory.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// How long sshd may take to listen.
const LISTEN_DEADLINE: Duration = Duration::from_secs(30);

/// The alias the ssh configuration gives the server.
pub const HOST: &str = "testhost";

pub struct Sshd {
    pub dir: PathBuf,
    pub port: u16,
    child: Child,
    /// The data directory of the app run over SSH there (`XDG_DATA_HOME`
    /// of its sessions, and `switchboard` in it).
    pub remote_data: PathBuf,
}

fn keygen(path: &Path) {
    let _ = std::fs::remove_file(path);
    let _ = std::fs::remove_file(path.with_extension("pub"));
    let status = Command::new("ssh-keygen")
        .args(["-q", "-t", "ed25519", "-N", "", "-f"])
        .arg(path)
        .status()
        .expect("ssh-keygen (openssh-client) is installed: ./scripts/setup.sh installs it");
    assert!(status.success());
}

impl Sshd {
    /// Starts the server with its files in `dir`, and waits until it listens.
    pub fn start(dir: &Path) -> Sshd {
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        keygen(&dir.join("host_key"));
        keygen(&dir.join("user_key"));
        std::fs::copy(dir.join("user_key.pub"), dir.join("authorized_keys")).unwrap();
        let xdg = dir.join("remote-xdg");
        // sshd as root checks that its privilege separation folder is there.
        if nix::unistd::Uid::current().is_root() {
            std::fs::create_dir_all("/run/sshd").unwrap();
        }
        let config = format!(
            "Port {port}\nListenAddress 127.0.0.1\nHostKey {d}/host_key\nAuthorizedKeysFile {d}/authorized_keys\n\
             PasswordAuthentication no\nKbdInteractiveAuthentication no\nUsePAM no\nStrictModes no\n\
             PidFile {d}/sshd.pid\nPermitRootLogin prohibit-password\nSetEnv XDG_DATA_HOME={x}\n",
            d = dir.display(),
            x = xdg.display()
        );
        std::fs::write(dir.join("sshd_config"), config).unwrap();
        let client = format!(
            "Host {HOST}\n  HostName 127.0.0.1\n  Port {port}\n  IdentityFile {d}/user_key\n  IdentitiesOnly yes\n  \
             UserKnownHostsFile {d}/known_hosts\n  GlobalKnownHostsFile /dev/null\n  PasswordAuthentication no\n  \
             LogLevel ERROR\n",
            d = dir.display()
        );
        std::fs::write(dir.join("ssh_config"), client).unwrap();
        let mut sshd = Sshd { dir: dir.to_path_buf(), port, child: spawn(dir), remote_data: xdg.join("switchboard") };
        sshd.wait_listening();
        sshd
    }

    fn wait_listening(&mut self) {
        let started = Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", self.port)).is_err() {
            if let Some(status) = self.child.try_wait().unwrap() {
                let log = std::fs::read_to_string(self.dir.join("sshd.log")).unwrap_or_default();
                panic!("sshd exited ({status}): {log}");
            }
            assert!(started.elapsed() < LISTEN_DEADLINE, "sshd does not listen on {}", self.port);
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The ssh command that reaches it (for `SWITCHBOARD_SSH`).
    pub fn ssh_command(&self) -> String {
        format!("ssh -F {}", self.dir.join("ssh_config").display())
    }

    /// Trusts the server's key, as a user who accepted it would.
    pub fn trust(&self) {
        let scanned = Command::new("ssh-keyscan")
            .args(["-t", "ed25519", "-p", &self.port.to_string(), "127.0.0.1"])
            .stderr(Stdio::null())
            .output()
            .unwrap();
        std::fs::write(self.known_hosts_path(), scanned.stdout).unwrap();
    }

    pub fn known_hosts_path(&self) -> PathBuf {
        self.dir.join("known_hosts")
    }

    pub fn known_hosts(&self) -> String {
        std::fs::read_to_string(self.known_hosts_path()).unwrap_or_default()
    }

    /// The server again with a new host key: what a reinstalled machine, or
    /// someone in the middle, presents.
    pub fn restart_with_new_key(&mut self) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
        keygen(&self.dir.join("host_key"));
        self.child = spawn(&self.dir);
        self.wait_listening();
    }
}

fn spawn(dir: &Path) -> Child {
    let log = std::fs::File::create(dir.join("sshd.log")).unwrap();
    Command::new("/usr/sbin/sshd")
        .args(["-D", "-e", "-f"])
        .arg(dir.join("sshd_config"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .expect("sshd (openssh-server) is installed: ./scripts/setup.sh installs it")
}

impl Drop for Sshd {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
