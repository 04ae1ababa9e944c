//! Builds the Tauri context from the repository-root `tauri.conf.json` and
//! declares the app's commands, so the capability file can grant exactly
//! these to the main window and nothing else.

/// Every command of `src/commands.rs`; a command missing here cannot be called.
/// The engine's own commands all pass through `engine_call`, which admits
/// only those the engine marks as the window's.
const COMMANDS: &[&str] = &[
    "app_info",
    "engine_link",
    "attached_hosts",
    "connect_host",
    "start_engine",
    "restart_engine",
    "quit_and_stop_agents",
    "engine_call",
    "attach_terminal",
    "detach_terminal",
    "set_viewing",
    "set_event_pace",
    "follow_log",
    "open_artifact",
    "take_open_target",
    "list_hosts",
    "add_host",
    "remove_host",
    "open_host",
];

/// What the engine's build is made of, from this crate's folder: its Rust
/// sources and manifests (the window's pages are not the engine: a change to
/// them alone is the same engine).
const BUILD_INPUTS: &[&str] = &["../Cargo.toml", "../Cargo.lock", "../crates", "Cargo.toml", "src"];

/// FNV-1a over the inputs: stable across machines and runs (std's hasher is
/// seeded per process), no dependency, and fast enough for a few MB.
fn fnv1a(hash: u64, bytes: &[u8]) -> u64 {
    bytes.iter().fold(hash, |hash, byte| (hash ^ u64::from(*byte)).wrapping_mul(0x0100_0000_01b3))
}

/// Every file under `path` that makes the engine (Rust sources, manifests),
/// in a stable order; `target` folders and hidden ones left out.
fn inputs(path: &std::path::Path, into: &mut Vec<std::path::PathBuf>) {
    let Ok(meta) = std::fs::metadata(path) else { return };
    if meta.is_file() {
        into.push(path.to_path_buf());
        return;
    }
    let Ok(entries) = std::fs::read_dir(path) else { return };
    let mut entries: Vec<_> = entries.filter_map(Result::ok).map(|e| e.path()).collect();
    entries.sort();
    for entry in entries {
        let name = entry.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        let wanted = entry.is_dir() || name.ends_with(".rs") || name.ends_with(".toml") || name == "Cargo.lock";
        if !name.starts_with('.') && name != "target" && wanted {
            inputs(&entry, into);
        }
    }
}

/// The build identity compiled into the app (`SWITCHBOARD_BUILD_ID`): its
/// version and a hash of what it was built from, so the same build installed
/// at another path says the same and any other build says another (the
/// window's "another build" banner compares them). Needs no git: a clean
/// copy of the sources builds the same identity. Recomputed only when an
/// input changes.
fn stamp_build() {
    let mut files = Vec::new();
    for input in BUILD_INPUTS {
        println!("cargo:rerun-if-changed={input}");
        inputs(std::path::Path::new(input), &mut files);
    }
    let mut hash = 0xcbf2_9ce4_8422_2325;
    for file in &files {
        hash = fnv1a(hash, file.to_string_lossy().as_bytes());
        hash = fnv1a(hash, &std::fs::read(file).unwrap_or_default());
    }
    let version = std::env::var("CARGO_PKG_VERSION").expect("cargo sets the version");
    println!("cargo:rustc-env=SWITCHBOARD_BUILD_ID={version}+{hash:016x}");
}

fn main() {
    stamp_build();
    let attributes = tauri_build::Attributes::new()
        .config_path("../tauri.conf.json")
        .app_manifest(tauri_build::AppManifest::new().commands(COMMANDS));
    tauri_build::try_build(attributes).expect("the Tauri configuration and capabilities are valid");
}
