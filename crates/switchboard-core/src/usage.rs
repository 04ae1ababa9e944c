//! Following the agents' own files for token usage: one thread for every
//! file (inotify instances are few and shared with the user's editors), which
//! looks at each followed file's size once a `POLL` and reads only what was
//! added since the offset it reached, whole lines only, a chunk at a time.
//! What it read goes to the engine with the offset after it, so the store
//! keeps both at once and a restart resumes exactly there.
//!
//! These are agents' files: each is opened inside its CLI's own folder only
//! (`projects/` of Claude Code's, `sessions/` of Codex's), never through a
//! link, without blocking, and only a regular file. A file that shrank or was
//! replaced is read again from its start (answers are stored by their key, so
//! none counts twice); a line longer than `MAX_LINE` is skipped; a line that
//! does not read is counted and skipped; each said in words.

use std::collections::HashMap;
use std::io::{Read, Seek, SeekFrom};
use std::os::unix::fs::MetadataExt;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender};
use std::time::Duration;

pub use switchboard_protocol::usage::Transcript;
use switchboard_protocol::usage::{Answer, Line, Reading, read_line};

use crate::workspace::Workspace;

/// How often each followed file's size is looked at.
pub const POLL: Duration = Duration::from_millis(500);

/// The most read of one file at a time.
pub const CHUNK: usize = 4 * 1024 * 1024;

/// A line longer than this is skipped (said once per file).
pub const MAX_LINE: usize = CHUNK;

/// A file to follow from `offset`, inside `root` (its CLI's folder).
#[derive(Debug, Clone)]
pub struct Followed {
    pub path: String,
    pub root: PathBuf,
    pub kind: Transcript,
    pub offset: u64,
    pub reading: Reading,
}

/// What one read of a file found.
#[derive(Debug, Clone, PartialEq)]
pub struct UsageRead {
    pub path: String,
    /// Where the next read starts.
    pub offset: u64,
    pub reading: Reading,
    pub answers: Vec<Answer>,
    /// What went wrong, in words, if anything did.
    pub problem: Option<String>,
    /// Read to its end as it is now.
    pub caught_up: bool,
}

enum Order {
    Follow(Box<Followed>),
    Unfollow(String),
    /// Look now (a turn just ended: its usage may be written).
    Look,
}

/// The engine's hold on the follower: dropping it ends the thread (also
/// one waiting for room to hand on what it read: the engine that stops
/// reads no more).
pub struct Follower {
    orders: Sender<Order>,
    stopping: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Follower {
    /// Starts the thread; what it reads goes to `reads`.
    pub fn start(reads: tokio::sync::mpsc::Sender<UsageRead>) -> Follower {
        let (orders, incoming) = std::sync::mpsc::channel();
        let stopping = Arc::new(AtomicBool::new(false));
        let stop = stopping.clone();
        let thread = std::thread::Builder::new()
            .name("usage-follower".into())
            .spawn(move || follow_all(&incoming, &reads, &stop))
            .expect("the usage follower's thread starts");
        Follower { orders, stopping, thread: Some(thread) }
    }

    pub fn follow(&self, followed: Followed) {
        self.orders.send(Order::Follow(Box::new(followed))).ok();
    }

    pub fn unfollow(&self, path: &str) {
        self.orders.send(Order::Unfollow(path.to_owned())).ok();
    }

    pub fn look(&self) {
        self.orders.send(Order::Look).ok();
    }
}

impl Drop for Follower {
    fn drop(&mut self) {
        // The thread ends when its orders' channel closes, or at its next
        // try to hand on a read.
        self.stopping.store(true, Ordering::SeqCst);
        let (closed, _) = std::sync::mpsc::channel();
        self.orders = closed;
        if let Some(thread) = self.thread.take() {
            thread.join().ok();
        }
    }
}

/// A file as the thread follows it.
struct Tracked {
    followed: Followed,
    /// The file's identity when last read (device, inode): another file
    /// under the same name is read from its start.
    identity: Option<(u64, u64)>,
    /// The rest of a line too long to read is being passed over.
    skipping: bool,
    /// The problem last told, told again only when it changes.
    told: Option<String>,
}

/// Hands a read to the engine, waiting for room while the engine runs;
/// false once it stopped.
fn hand_on(reads: &tokio::sync::mpsc::Sender<UsageRead>, mut read: UsageRead, stopping: &AtomicBool) -> bool {
    loop {
        if stopping.load(Ordering::SeqCst) {
            return false;
        }
        match reads.try_send(read) {
            Ok(()) => return true,
            Err(tokio::sync::mpsc::error::TrySendError::Full(again)) => {
                read = again;
                std::thread::sleep(Duration::from_millis(5));
            }
            Err(tokio::sync::mpsc::error::TrySendError::Closed(_)) => return false,
        }
    }
}

fn follow_all(incoming: &Receiver<Order>, reads: &tokio::sync::mpsc::Sender<UsageRead>, stopping: &AtomicBool) {
    let mut files: HashMap<String, Tracked> = HashMap::new();
    loop {
        match incoming.recv_timeout(POLL) {
            Ok(Order::Follow(followed)) => {
                let path = followed.path.clone();
                files.insert(path, Tracked { followed: *followed, identity: None, skipping: false, told: None });
            }
            Ok(Order::Unfollow(path)) => {
                files.remove(&path);
                continue;
            }
            Ok(Order::Look) | Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => return,
        }
        for file in files.values_mut() {
            loop {
                let read = read_more(file);
                let caught_up = read.caught_up;
                let worth_telling =
                    !read.answers.is_empty() || read.offset != file.followed.offset || read.problem != file.told;
                file.followed.offset = read.offset;
                file.followed.reading = read.reading.clone();
                file.told.clone_from(&read.problem);
                if worth_telling && !hand_on(reads, read, stopping) {
                    return;
                }
                if caught_up {
                    break;
                }
            }
        }
    }
}

/// Reads what was added to the file since its offset: one chunk at most.
fn read_more(file: &mut Tracked) -> UsageRead {
    let followed = &file.followed;
    let mut read = UsageRead {
        path: followed.path.clone(),
        offset: followed.offset,
        reading: followed.reading.clone(),
        answers: Vec::new(),
        problem: None,
        caught_up: true,
    };
    let mut opened = match open_in(followed) {
        Ok(Some(opened)) => opened,
        // Not written yet: Claude Code writes its file late.
        Ok(None) => return read,
        Err(problem) => {
            read.problem = Some(problem);
            return read;
        }
    };
    let Ok(meta) = opened.metadata() else { return read };
    let identity = (meta.dev(), meta.ino());
    let replaced = file.identity.is_some_and(|known| known != identity);
    file.identity = Some(identity);
    if replaced || meta.len() < read.offset {
        read.offset = 0;
        read.reading = Reading::default();
        file.skipping = false;
        read.problem = Some(
            "the file was cut short or replaced: it is read again from its start (answers already counted are not \
             counted twice)"
                .to_owned(),
        );
    }
    if meta.len() == read.offset {
        return read;
    }
    let mut chunk = Vec::with_capacity(CHUNK.min((meta.len() - read.offset) as usize));
    let taken = opened
        .seek(SeekFrom::Start(read.offset))
        .and_then(|_| (&mut opened).take(CHUNK as u64).read_to_end(&mut chunk));
    if let Err(error) = taken {
        read.problem = Some(format!("it could not be read: {error}"));
        return read;
    }
    let mut lines = &chunk[..];
    if file.skipping {
        match memchr::memchr(b'\n', lines) {
            Some(end) => {
                file.skipping = false;
                lines = &lines[end + 1..];
                read.offset += end as u64 + 1;
            }
            None => {
                read.offset += chunk.len() as u64;
                read.caught_up = chunk.len() < CHUNK;
                return read;
            }
        }
    }
    let Some(last) = memchr::memrchr(b'\n', lines) else {
        // One line, not ended: a line longer than a chunk is passed over;
        // a shorter one is still being written.
        if lines.len() >= MAX_LINE {
            file.skipping = true;
            read.offset += lines.len() as u64;
            read.caught_up = false;
            read.problem = Some(format!("a line longer than {} MiB was skipped", MAX_LINE / (1024 * 1024)));
        }
        return read;
    };
    let whole = &lines[..=last];
    let mut malformed = 0_u32;
    for line in whole.split(|b| *b == b'\n') {
        if !carries_usage(followed.kind, line) {
            continue;
        }
        match read_line(followed.kind, &String::from_utf8_lossy(line), &mut read.reading) {
            Line::Answer(answer) => read.answers.push(answer),
            Line::Malformed => malformed += 1,
            Line::Other => {}
        }
    }
    read.offset += whole.len() as u64;
    read.caught_up = chunk.len() < CHUNK;
    if malformed > 0 {
        read.problem = Some(format!("{malformed} line(s) that do not read as JSON were skipped"));
    }
    read
}

/// Whether a line may carry usage (or what later usage needs): the rest is
/// not parsed at all, which keeps a first read of a long file quick.
fn carries_usage(kind: Transcript, line: &[u8]) -> bool {
    let has = |needle: &str| memchr::memmem::find(line, needle.as_bytes()).is_some();
    match kind {
        Transcript::ClaudeCode => has("\"usage\""),
        Transcript::Codex => {
            has("token_usage_record") || has("token_count") || has("turn_context") || has("session_meta")
        }
    }
}

/// Opens the file inside its CLI's folder, the guarded way; none while it
/// does not exist yet.
fn open_in(followed: &Followed) -> Result<Option<std::fs::File>, String> {
    let inside = Path::new(&followed.path)
        .strip_prefix(&followed.root)
        .ok()
        .filter(|relative| in_own_folder(followed.kind, relative))
        .ok_or_else(|| {
            format!("it is not in {}'s own folder {}: not read", name(followed.kind), followed.root.display())
        })?;
    let folder = match Workspace::open(&followed.root) {
        Ok(folder) => folder,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(error) => return Err(format!("its folder could not be opened: {error}")),
    };
    match folder.open_file(&inside.display().to_string()) {
        Ok(file) => Ok(Some(file)),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(error) => Err(format!("it could not be opened: {error}")),
    }
}

fn name(kind: Transcript) -> &'static str {
    match kind {
        Transcript::ClaudeCode => "Claude Code",
        Transcript::Codex => "Codex",
    }
}

/// `projects/…/….jsonl` in Claude Code's folder, `sessions/…/….jsonl` in
/// Codex's, plain names only.
pub fn in_own_folder(kind: Transcript, relative: &Path) -> bool {
    let plain = relative.components().all(|c| matches!(c, Component::Normal(_)));
    let top = match kind {
        Transcript::ClaudeCode => "projects",
        Transcript::Codex => "sessions",
    };
    plain && relative.starts_with(top) && relative.extension().is_some_and(|e| e == "jsonl")
}

/// Whether Codex's `auth.json` says it is signed in with a ChatGPT plan
/// (rather than an API key): its `auth_mode`, or, where an older Codex
/// wrote none, sign-in tokens without a key.
pub fn codex_signed_in_with_plan(auth: &str) -> bool {
    let Ok(auth) = serde_json::from_str::<serde_json::Value>(auth) else { return false };
    match auth.get("auth_mode").and_then(serde_json::Value::as_str) {
        Some(mode) => mode.eq_ignore_ascii_case("chatgpt"),
        None => {
            auth.get("tokens").is_some_and(|t| !t.is_null())
                && auth.get("OPENAI_API_KEY").is_none_or(serde_json::Value::is_null)
        }
    }
}

#[cfg(test)]
mod tests;
