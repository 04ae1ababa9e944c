//! The app's log: to stderr and to a daily file in the data directory, in a
//! way that can never panic or block the thread that logs.
//!
//! Each line is handed to a writer thread through a bounded queue
//! ([`LOG_QUEUE_LINES`]); when the queue is full the line is dropped and
//! counted rather than waited for. The writer thread never fails either: a
//! destination that refuses a line (stderr closed, piped into a reader that
//! went away, or on a full disk) loses that line, which is counted, and the
//! other destination still gets it. (The common logging crates answer a
//! failed write by printing to stderr, which panics when stderr is what
//! failed; hence this small writer of our own.)

use std::fs::{File, OpenOptions};
use std::io::{self, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, SyncSender, TrySendError};
use std::time::Duration;

use tracing_subscriber::fmt::MakeWriter;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::{EnvFilter, Layer, Registry};

/// Lines waiting for each destination's writer thread at most; past it new
/// lines are dropped (and counted) instead of blocking the code that logs.
pub const LOG_QUEUE_LINES: usize = 10_000;
/// The log file's size at most; past it the file becomes `switchboard.log.1`
/// (replacing the one before) and a new one starts.
pub const MAX_LOG_FILE_BYTES: u64 = 10 * 1024 * 1024;
pub use crate::config::LOG_DIR;
/// The log file's name in [`LOG_DIR`].
pub const LOG_FILE: &str = "switchboard.log";
/// What is logged when `RUST_LOG` does not say.
pub const DEFAULT_FILTER: &str = "info,switchboard=debug";
/// How long dropping the [`LogGuard`] waits for queued lines to be written.
const FLUSH_WAIT: Duration = Duration::from_secs(1);

/// Lines that did not reach a destination: dropped because its queue was
/// full, or refused by it when written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LogLosses {
    pub dropped: u64,
    pub failed: u64,
}

#[derive(Default)]
struct Counters {
    dropped: AtomicU64,
    failed: AtomicU64,
}

/// Keeps account of the log; dropping it waits (at most a second per
/// destination) for the queued lines to be written.
pub struct LogGuard {
    queues: Vec<LineQueue>,
    counters: Arc<Counters>,
    /// The log file, if the data directory could hold it.
    pub file: Option<PathBuf>,
}

impl LogGuard {
    pub fn losses(&self) -> LogLosses {
        LogLosses {
            dropped: self.counters.dropped.load(Ordering::Relaxed),
            failed: self.counters.failed.load(Ordering::Relaxed),
        }
    }
}

impl Drop for LogGuard {
    fn drop(&mut self) {
        for queue in &self.queues {
            let (done, flushed) = mpsc::sync_channel(1);
            if queue.sender.try_send(Line::Flush(done)).is_ok() {
                let _ = flushed.recv_timeout(FLUSH_WAIT);
            }
        }
    }
}

/// Installs the global logger: `stderr` (the process's own, in the app) and,
/// when the data directory takes it, the file `<data_dir>/logs/switchboard.log`.
/// Returns the guard to keep until exit. Installing twice keeps the first.
pub fn init(data_dir: Option<&Path>, stderr: impl Write + Send + 'static, stderr_is_terminal: bool) -> LogGuard {
    let (subscriber, guard) = subscriber(data_dir, stderr, stderr_is_terminal);
    let _ = subscriber.try_init();
    guard
}

/// [`init`] for the process's own stderr.
pub fn init_for_app(data_dir: Option<&Path>) -> LogGuard {
    init(data_dir, io::stderr(), io::stderr().is_terminal())
}

/// The logger [`init`] installs, not yet installed (tests use it scoped).
pub fn subscriber(
    data_dir: Option<&Path>,
    stderr: impl Write + Send + 'static,
    stderr_is_terminal: bool,
) -> (impl tracing::Subscriber + Send + Sync, LogGuard) {
    let counters = Arc::new(Counters::default());
    let filter = || EnvFilter::try_from_default_env().unwrap_or_else(|_| DEFAULT_FILTER.into());

    let stderr_queue = LineQueue::spawn(stderr, counters.clone());
    let mut queues = vec![stderr_queue.clone()];
    let stderr_layer =
        tracing_subscriber::fmt::layer().with_ansi(stderr_is_terminal).with_writer(stderr_queue).with_filter(filter());

    let file = data_dir.and_then(|dir| CappedFile::open(dir.join(LOG_DIR).join(LOG_FILE)));
    let file_path = file.as_ref().map(|file| file.path.clone());
    let file_layer = file.map(|file| {
        let queue = LineQueue::spawn(file, counters.clone());
        queues.push(queue.clone());
        tracing_subscriber::fmt::layer().with_ansi(false).with_writer(queue).with_filter(filter())
    });

    let subscriber = Registry::default().with(stderr_layer).with(file_layer);
    (subscriber, LogGuard { queues, counters, file: file_path })
}

enum Line {
    Text(Vec<u8>),
    Flush(SyncSender<()>),
}

/// The bounded queue in front of one destination's writer thread. Writing to
/// it never blocks and never fails: a line that does not fit is counted.
#[derive(Clone)]
struct LineQueue {
    sender: SyncSender<Line>,
    counters: Arc<Counters>,
}

impl LineQueue {
    fn spawn(mut destination: impl Write + Send + 'static, counters: Arc<Counters>) -> LineQueue {
        let (sender, lines) = mpsc::sync_channel(LOG_QUEUE_LINES);
        let failed = counters.clone();
        let spawned = std::thread::Builder::new().name("switchboard-log".into()).spawn(move || {
            write_lines(&lines, &mut destination, &failed.failed);
        });
        if spawned.is_err() {
            // No thread, no log: every line will be counted as dropped.
            counters.dropped.fetch_add(1, Ordering::Relaxed);
        }
        LineQueue { sender, counters }
    }
}

/// The writer thread: each line is written whole or counted as failed; it
/// ends when every sender is gone.
fn write_lines(lines: &Receiver<Line>, destination: &mut impl Write, failed: &AtomicU64) {
    for line in lines {
        match line {
            Line::Text(text) => {
                if destination.write_all(&text).and_then(|()| destination.flush()).is_err() {
                    failed.fetch_add(1, Ordering::Relaxed);
                }
            }
            Line::Flush(done) => {
                let _ = done.try_send(());
            }
        }
    }
}

impl Write for &LineQueue {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self.sender.try_send(Line::Text(buf.to_vec())) {
            Ok(()) => {}
            Err(TrySendError::Full(_) | TrySendError::Disconnected(_)) => {
                self.counters.dropped.fetch_add(1, Ordering::Relaxed);
            }
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl<'a> MakeWriter<'a> for LineQueue {
    type Writer = &'a LineQueue;

    fn make_writer(&'a self) -> Self::Writer {
        self
    }
}

/// The log file, kept under [`MAX_LOG_FILE_BYTES`] by turning it into
/// `switchboard.log.1` when full.
struct CappedFile {
    path: PathBuf,
    file: File,
    size: u64,
    cap: u64,
}

impl CappedFile {
    /// `None` when the folder cannot be made or the file cannot be written (a
    /// read-only data directory still gets a window and stderr).
    fn open(path: PathBuf) -> Option<CappedFile> {
        crate::private::create_dir(path.parent()?).ok()?;
        let file = crate::private::open(OpenOptions::new().create(true).append(true), &path).ok()?;
        let size = file.metadata().map(|meta| meta.len()).unwrap_or(0);
        Some(CappedFile { path, file, size, cap: MAX_LOG_FILE_BYTES })
    }

    fn rotate(&mut self) -> io::Result<()> {
        let mut old = self.path.clone().into_os_string();
        old.push(".1");
        std::fs::rename(&self.path, old)?;
        self.file = crate::private::open(OpenOptions::new().create(true).append(true), &self.path)?;
        self.size = 0;
        Ok(())
    }
}

impl Write for CappedFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.size + buf.len() as u64 > self.cap && self.size > 0 {
            self.rotate()?;
        }
        let written = self.file.write(buf)?;
        self.size += written as u64;
        Ok(written)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;
    use std::time::{Duration, Instant};

    /// Stands for stderr on a full disk: every write fails.
    struct Full;
    impl Write for Full {
        fn write(&mut self, _: &[u8]) -> io::Result<usize> {
            Err(io::Error::from_raw_os_error(libc::ENOSPC))
        }
        fn flush(&mut self) -> io::Result<()> {
            Err(io::Error::from_raw_os_error(libc::ENOSPC))
        }
    }

    /// Stands for stderr piped into a reader that stopped reading: the first
    /// write says it began, then never returns until the test lets it go.
    struct Stuck(mpsc::Sender<()>, mpsc::Receiver<()>);
    impl Write for Stuck {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            let _ = self.0.send(());
            let _ = self.1.recv();
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_stderr_that_refuses_every_write_neither_panics_nor_stops_the_file_log() {
        let data = tempfile::tempdir().unwrap();
        let (subscriber, guard) = subscriber(Some(data.path()), Full, false);
        tracing::subscriber::with_default(subscriber, || {
            for n in 0..20 {
                tracing::info!(n, "switchboard still logs");
            }
        });
        let losses_before_flush = guard.losses();
        drop(guard);
        let text = std::fs::read_to_string(data.path().join(LOG_DIR).join(LOG_FILE)).unwrap();
        assert_eq!(text.matches("switchboard still logs").count(), 20, "{text}");
        assert_eq!(losses_before_flush.dropped, 0);
    }

    #[test]
    fn failed_writes_are_counted() {
        let data = tempfile::tempdir().unwrap();
        let (subscriber, guard) = subscriber(Some(data.path()), Full, false);
        tracing::subscriber::with_default(subscriber, || tracing::warn!("one line"));
        let deadline = Instant::now() + Duration::from_secs(10);
        while guard.losses().failed == 0 && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        assert_eq!(guard.losses(), LogLosses { dropped: 0, failed: 1 });
    }

    #[test]
    fn a_stderr_that_never_drains_does_not_block_logging_and_drops_what_overflows() {
        let (release, stuck) = mpsc::channel();
        let (began, writing) = mpsc::channel();
        let (subscriber, guard) = subscriber(None, Stuck(began, stuck), false);
        let lines = LOG_QUEUE_LINES + 500;
        tracing::subscriber::with_default(subscriber, || {
            tracing::info!("first");
            writing.recv().unwrap();
            for n in 1..lines {
                tracing::info!(n, "flood");
            }
        });
        // Every call returned although nothing was written; what the queue
        // could not hold was dropped and counted.
        let dropped = guard.losses().dropped;
        // The writer thread holds one line, the queue the next ones.
        assert_eq!(dropped as usize, lines - LOG_QUEUE_LINES - 1);
        drop(release);
        drop(guard);
    }

    #[test]
    fn a_data_directory_that_cannot_hold_logs_leaves_stderr_logging() {
        let data = tempfile::tempdir().unwrap();
        // A file where the logs folder should be: the folder cannot be made.
        std::fs::write(data.path().join(LOG_DIR), "not a folder").unwrap();
        let stderr = Shared::default();
        let (subscriber, guard) = subscriber(Some(data.path()), stderr.clone(), false);
        assert_eq!(guard.file, None);
        tracing::subscriber::with_default(subscriber, || tracing::info!("to stderr only"));
        drop(guard);
        let written = String::from_utf8(stderr.0.lock().unwrap().clone()).unwrap();
        assert!(written.contains("to stderr only"), "{written}");
    }

    #[test]
    fn a_full_log_file_is_kept_as_the_previous_one_and_a_new_one_starts() {
        let data = tempfile::tempdir().unwrap();
        let path = data.path().join(LOG_FILE);
        let mut file = CappedFile::open(path.clone()).unwrap();
        file.cap = 100;
        for n in 0..30 {
            writeln!(file, "line {n:02}").unwrap();
        }
        let current = std::fs::read_to_string(&path).unwrap();
        let previous = std::fs::read_to_string(data.path().join(format!("{LOG_FILE}.1"))).unwrap();
        assert!(current.len() <= 100 && previous.len() <= 100);
        assert!(current.ends_with("line 29\n"), "{current}");
        assert!(previous.ends_with(&format!("line {:02}\n", 29 - current.lines().count())), "{previous}");
    }

    #[derive(Clone, Default)]
    struct Shared(Arc<std::sync::Mutex<Vec<u8>>>);
    impl Write for Shared {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }
}
