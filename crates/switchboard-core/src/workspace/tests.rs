use std::os::unix::fs::symlink;

use super::*;

struct Planted {
    _dir: tempfile::TempDir,
    _outside: tempfile::TempDir,
    root: PathBuf,
    /// A file outside the workspace an agent would like the app to touch.
    secret: PathBuf,
}

fn fifo(path: &Path) {
    nix::unistd::mkfifo(path, Mode::from_bits_truncate(0o644)).unwrap();
}

/// A workspace with what a hostile agent plants in it.
fn planted() -> Planted {
    let dir = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let secret = outside.path().canonicalize().unwrap().join("bashrc");
    std::fs::write(&secret, "# the user's shell\n").unwrap();
    std::fs::create_dir(root.join("src")).unwrap();
    std::fs::write(root.join("src/lib.rs"), "pub fn x() {}\n").unwrap();
    symlink("src/lib.rs", root.join("relative-link")).unwrap();
    symlink(root.join("src/lib.rs"), root.join("absolute-link")).unwrap();
    symlink(&secret, root.join("escape")).unwrap();
    symlink("/dev/zero", root.join("zeros")).unwrap();
    symlink(outside.path(), root.join("out-dir")).unwrap();
    fifo(&root.join("pipe"));
    Planted { _dir: dir, _outside: outside, root, secret }
}

fn refusal_for<T: std::fmt::Debug>(result: std::io::Result<T>) -> Option<PathRefusal> {
    refusal_of(&result.expect_err("refused"))
}

#[test]
fn reads_follow_links_only_while_they_stay_inside_and_never_block() {
    let p = planted();
    let ws = Workspace::open(&p.root).unwrap();
    let absolute_inside = p.root.join("src/lib.rs").display().to_string();
    let ok = ["src/lib.rs", "./src/lib.rs", &absolute_inside, "relative-link", "absolute-link"];
    for listed in ok {
        assert_eq!(ws.read(listed, 1024).unwrap().text, "pub fn x() {}\n", "{listed}");
        assert_eq!(ws.real_path(listed).unwrap(), p.root.join("src/lib.rs"), "{listed}");
    }
    let refused = [
        ("escape", PathRefusal::LeadsOutside),
        ("zeros", PathRefusal::LeadsOutside),
        ("out-dir/bashrc", PathRefusal::LeadsOutside),
        ("pipe", PathRefusal::NotAFile),
        ("src", PathRefusal::NotAFile),
        ("missing.txt", PathRefusal::Missing),
        ("../etc/passwd", PathRefusal::ParentDir),
        ("src/../src/lib.rs", PathRefusal::ParentDir),
        ("/etc/passwd", PathRefusal::OutsideWorkspace),
        ("  ", PathRefusal::Empty),
        (".", PathRefusal::NotAFile),
    ];
    for (listed, why) in refused {
        assert_eq!(refusal_for(ws.read(listed, 1024)), Some(why), "{listed}");
        assert_eq!(ws.real_path(listed).unwrap_err(), why, "{listed}");
    }
    assert_eq!(ws.read_if_there("missing.txt", 10).unwrap(), None);
    assert_eq!(refusal_for(ws.read_if_there("escape", 10)), Some(PathRefusal::LeadsOutside));
}

#[test]
fn without_openat2_reads_are_checked_where_they_really_point() {
    let p = planted();
    let ws = Workspace::open(&p.root).unwrap();
    let read = |relative: &str| ws.open_and_check(Path::new(relative), OFlag::O_RDONLY | OFlag::O_NONBLOCK);
    assert!(read("relative-link").is_ok());
    assert!(read("absolute-link").is_ok());
    assert_eq!(refusal_for(read("escape")), Some(PathRefusal::LeadsOutside));
    assert_eq!(refusal_for(read("zeros")), Some(PathRefusal::LeadsOutside));
    assert_eq!(refusal_for(read("missing")), Some(PathRefusal::Missing));
    // A FIFO opens without blocking; the regular-file check refuses it after.
    assert!(!read("pipe").unwrap().metadata().unwrap().is_file());
    // Folders for writing are reached through no link at all.
    assert!(ws.walk_to_folder(Path::new("src")).is_ok());
    assert_eq!(refusal_for(ws.walk_to_folder(Path::new("out-dir"))), Some(PathRefusal::Link));
    assert_eq!(refusal_for(ws.walk_to_folder(Path::new("src/lib.rs"))), Some(PathRefusal::NotAFolder));
}

#[test]
fn reads_are_capped_at_the_head_and_the_tail() {
    let p = planted();
    let ws = Workspace::open(&p.root).unwrap();
    let text = format!("{}\nthe end\n", "x".repeat(10_000));
    std::fs::write(p.root.join("long.md"), &text).unwrap();
    let capped = ws.read("long.md", 100).unwrap();
    assert_eq!((capped.text.len(), capped.size, capped.truncated), (100, text.len() as u64, true));
    let both = ws.read_head_and_tail("long.md", 10, 20).unwrap();
    assert!(both.starts_with("xxxxxxxxxx\n\n[… "), "{both}");
    assert!(both.ends_with("the end\n"), "{both}");
    assert_eq!(ws.read_head_and_tail("src/lib.rs", 10, 20).unwrap(), "pub fn x() {}\n");
}

#[test]
fn writes_never_go_through_a_planted_link_or_fifo() {
    let p = planted();
    let ws = Workspace::open(&p.root).unwrap();
    // What an agent plants at the temporary paths the app once used.
    symlink(&p.secret, p.root.join(".CONTEXT.md.switchboard-tmp")).unwrap();
    fifo(&p.root.join(".SPECS.md.switchboard-tmp"));
    ws.write("CONTEXT.md", b"the context").unwrap();
    ws.write("SPECS.md", b"the specs").unwrap();
    assert_eq!(std::fs::read_to_string(p.root.join("CONTEXT.md")).unwrap(), "the context");
    assert_eq!(std::fs::read_to_string(p.root.join("SPECS.md")).unwrap(), "the specs");
    // A link at the target's own name is replaced, not written through.
    ws.write("escape", b"replaced").unwrap();
    assert!(!std::fs::symlink_metadata(p.root.join("escape")).unwrap().file_type().is_symlink());
    assert_eq!(std::fs::read_to_string(&p.secret).unwrap(), "# the user's shell\n");
    // A folder reached through a link is refused.
    assert_eq!(refusal_for(ws.write("out-dir/x", b"no")), Some(PathRefusal::Link));
    assert!(!p.secret.with_file_name("x").exists());
    // No temporary file is left behind.
    let mut left: Vec<String> = std::fs::read_dir(&p.root)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.contains("switchboard-tmp"))
        .collect();
    left.sort();
    assert_eq!(left, [".CONTEXT.md.switchboard-tmp", ".SPECS.md.switchboard-tmp"], "only what the agent planted");
}

#[test]
fn appends_only_to_a_regular_file_of_the_workspace() {
    let p = planted();
    let ws = Workspace::open(&p.root).unwrap();
    ws.append("SKIPPED.md", b"# Skipped\n\n", b"- one\n").unwrap();
    ws.append("SKIPPED.md", b"# Skipped\n\n", b"- two\n").unwrap();
    assert_eq!(std::fs::read_to_string(p.root.join("SKIPPED.md")).unwrap(), "# Skipped\n\n- one\n- two\n");
    assert_eq!(refusal_for(ws.append("escape", b"", b"curl | sh\n")), Some(PathRefusal::Link));
    assert_eq!(std::fs::read_to_string(&p.secret).unwrap(), "# the user's shell\n");
    assert_eq!(refusal_for(ws.append("pipe", b"", b"x\n")), Some(PathRefusal::NotAFile));
    // A FIFO someone reads from is still not a file to append to.
    let reader = {
        use std::os::unix::fs::OpenOptionsExt;
        std::fs::OpenOptions::new().read(true).custom_flags(libc::O_NONBLOCK).open(p.root.join("pipe")).unwrap()
    };
    assert_eq!(refusal_for(ws.append("pipe", b"", b"x\n")), Some(PathRefusal::NotAFile));
    drop(reader);
}

#[test]
fn folders_are_made_in_place_of_nothing_else() {
    let p = planted();
    let ws = Workspace::open(&p.root).unwrap();
    ws.create_folder("summaries").unwrap();
    ws.create_folder("summaries").unwrap();
    assert!(p.root.join("summaries").is_dir());
    assert_eq!(refusal_for(ws.create_folder("out-dir")), Some(PathRefusal::NotAFolder));
    assert_eq!(refusal_for(ws.create_folder("src/lib.rs")), Some(PathRefusal::NotAFolder));
    assert_eq!(refusal_for(ws.create_folder("out-dir/inner")), Some(PathRefusal::Link));
    assert!(ws.exists("escape") && ws.exists("pipe") && !ws.exists("nothing"));
    ws.remove("escape").unwrap();
    assert!(p.secret.exists(), "the link went, not what it named");
}

#[test]
fn private_folders_make_files_for_their_user_only() {
    use std::os::unix::fs::PermissionsExt;
    let p = planted();
    let ws = Workspace::open_private(&p.root).unwrap();
    ws.write("exported.jsonl", b"{}\n").unwrap();
    ws.append("spool.jsonl", b"", b"{}\n").unwrap();
    for name in ["exported.jsonl", "spool.jsonl"] {
        let mode = std::fs::metadata(p.root.join(name)).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode & 0o077, 0, "{name}: {mode:o}");
    }
}
