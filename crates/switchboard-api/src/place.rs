//! Where the engine of a data directory is found: the data directory
//! itself, the folder and name of its socket, and the files in it that name
//! the engine's process and socket. The engine places itself by these and
//! its clients find it by them, so both read them here. Pure: nothing here
//! touches a file.

use std::path::{Path, PathBuf};

/// The data directory: the `--data-dir` flag, else `SWITCHBOARD_DATA_DIR`,
/// else `$XDG_DATA_HOME/switchboard`, else `~/.local/share/switchboard`.
/// Empty values count as unset, as the XDG spec says.
pub fn resolve_data_dir(
    flag: Option<&Path>,
    env_data_dir: Option<&str>,
    xdg_data_home: Option<&str>,
    home: Option<&str>,
) -> Option<PathBuf> {
    let non_empty = |value: Option<&str>| value.filter(|v| !v.is_empty()).map(PathBuf::from);
    flag.map(Path::to_path_buf)
        .filter(|p| !p.as_os_str().is_empty())
        .or_else(|| non_empty(env_data_dir))
        .or_else(|| non_empty(xdg_data_home).map(|dir| dir.join("switchboard")))
        .or_else(|| non_empty(home).map(|dir| dir.join(".local/share/switchboard")))
}

/// The folder of the data directory holding the socket when there is no
/// runtime folder.
pub const RUN_DIR: &str = "run";

/// The hook socket: inside `$XDG_RUNTIME_DIR/switchboard/` when that exists,
/// else `<data dir>/run/`. Named after a hash of the data directory so two
/// instances with different data never share a socket.
pub fn socket_path(data_dir: &Path, runtime_dir: Option<&Path>) -> PathBuf {
    let base = match runtime_dir {
        Some(dir) if !dir.as_os_str().is_empty() => dir.join("switchboard"),
        _ => data_dir.join(RUN_DIR),
    };
    base.join(format!("engine-{:016x}.sock", fnv1a(data_dir.as_os_str().as_encoded_bytes())))
}

/// FNV-1a: a stable, dependency-free hash (std's hasher is randomly seeded
/// per process, and the socket name must be the same for every process).
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, byte| (hash ^ u64::from(*byte)).wrapping_mul(0x0100_0000_01b3))
}

/// The file in the data directory the engine holds locked while it runs,
/// naming its process.
pub const LOCK_FILE: &str = "switchboard.lock";

/// The file in the data directory that names the engine's socket (its path,
/// as text), written by the engine once it listens.
pub const SOCKET_POINTER: &str = "engine.socket";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_dir_precedence() {
        /// flag, SWITCHBOARD_DATA_DIR, XDG_DATA_HOME, HOME -> expected
        type Case<'a> = (Option<&'a Path>, Option<&'a str>, Option<&'a str>, Option<&'a str>, Option<&'a str>);
        let flag = Path::new("/flag");
        let cases: [Case; 7] = [
            (Some(flag), Some("/env"), Some("/xdg"), Some("/home/u"), Some("/flag")),
            (None, Some("/env"), Some("/xdg"), Some("/home/u"), Some("/env")),
            (None, Some(""), Some("/xdg"), Some("/home/u"), Some("/xdg/switchboard")),
            (None, None, Some("/xdg"), Some("/home/u"), Some("/xdg/switchboard")),
            (None, None, Some(""), Some("/home/u"), Some("/home/u/.local/share/switchboard")),
            (None, None, None, Some("/home/u"), Some("/home/u/.local/share/switchboard")),
            (None, None, None, None, None),
        ];
        for (flag, env, xdg, home, expected) in cases {
            assert_eq!(
                resolve_data_dir(flag, env, xdg, home),
                expected.map(PathBuf::from),
                "flag={flag:?} env={env:?} xdg={xdg:?} home={home:?}"
            );
        }
    }
}
