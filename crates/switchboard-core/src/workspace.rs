//! The one way the app touches a file in a folder an agent can write to:
//! an agent's workspace (summaries, deliverables, context and spec files,
//! `SKIPPED_ITEMS.md`, `SHARED_FINDINGS.jsonl`, loop files, the protocol
//! files, Claude Code's local settings) and the app's own files an agent can
//! reach in the data folder (the hook spool, exports).
//!
//! An agent runs as the user and can put anything at any path of its
//! workspace: a symlink to `~/.bashrc`, a FIFO that blocks whoever opens it,
//! a link to `/dev/zero`. So every path is resolved from a descriptor of the
//! folder, never as a string:
//!
//! - **Reads** resolve with `openat2(RESOLVE_BENEATH)`: a link that stays
//!   inside is followed, one that leads out is refused by the kernel, with no
//!   window between a check and the open. The file is opened without
//!   blocking and read only if it is a regular file, up to a cap.
//! - **Writes** resolve their folder with no symlink at all
//!   (`RESOLVE_NO_SYMLINKS`), write a temporary file of a fresh name created
//!   exclusively (`O_EXCL`, so a planted link or FIFO at a temporary path is
//!   never opened) and rename it over the target; appends open the target
//!   with `O_NOFOLLOW | O_NONBLOCK` and refuse what is not a regular file.
//! - A kernel without `openat2` (before Linux 5.6, or a sandbox that filters
//!   it) gets the same answers another way: the file is opened without
//!   blocking and where its descriptor really points is checked before a
//!   byte is read; folders for writing are walked one component at a time
//!   with `O_NOFOLLOW`.
//!
//! The folder itself (the workspace the user chose, the data folder) is
//! trusted: it is opened once, following links, and everything below it is
//! not.

use std::ffi::OsStr;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::os::fd::{AsFd, AsRawFd, OwnedFd};
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use nix::errno::Errno;
use nix::fcntl::{AtFlags, OFlag, OpenHow, ResolveFlag, openat, openat2, renameat};
use nix::sys::stat::{Mode, SFlag, fstatat, mkdirat};
use nix::unistd::{UnlinkatFlags, unlinkat};

/// Why a path in a workspace is not read or written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum PathRefusal {
    #[error("empty path")]
    Empty,
    #[error("`..` is not allowed in a deliverable path")]
    ParentDir,
    #[error("an absolute path outside the workspace")]
    OutsideWorkspace,
    #[error("does not exist")]
    Missing,
    #[error("a symlink that leads outside the workspace")]
    LeadsOutside,
    #[error("a link, which the app does not write through")]
    Link,
    #[error("not a regular file")]
    NotAFile,
    #[error("not a folder")]
    NotAFolder,
}

impl PathRefusal {
    /// As an I/O error of the matching kind, the refusal kept as its cause
    /// (see [`refusal_of`]).
    pub fn into_io(self) -> std::io::Error {
        let kind = match self {
            PathRefusal::Missing => std::io::ErrorKind::NotFound,
            _ => std::io::ErrorKind::InvalidInput,
        };
        std::io::Error::new(kind, self)
    }
}

/// The refusal behind an I/O error of this module, if it was one.
pub fn refusal_of(error: &std::io::Error) -> Option<PathRefusal> {
    error.get_ref().and_then(|inner| inner.downcast_ref::<PathRefusal>()).copied()
}

/// What a capped read found: the text (invalid UTF-8 replaced), the file's
/// size, and whether the text was cut.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Capped {
    pub text: String,
    pub size: u64,
    pub truncated: bool,
}

/// Whether the kernel has `openat2`; a fallback is used when it says it
/// does not (or a sandbox refuses it).
fn openat2_missing(errno: Errno) -> bool {
    matches!(errno, Errno::ENOSYS | Errno::EPERM)
}

/// How often an `openat2` that raced a rename (`EAGAIN`) is tried again.
const RACE_RETRIES: usize = 16;

/// How many fresh names a temporary file gets before giving up: each is
/// made unique by the process, a counter and the time, so only a planted
/// file under that very name makes one fail.
const TEMP_NAME_ATTEMPTS: u64 = 8;

/// Makes each temporary name of this process unique.
static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// A folder whose contents an agent controls, opened once.
#[derive(Debug)]
pub struct Workspace {
    /// As the user named it, resolved: where paths are shown from.
    root: PathBuf,
    dir: OwnedFd,
    /// The mode of the files the app creates here (the umask still applies
    /// to a workspace's; the data folder's are private).
    file_mode: Mode,
    /// A folder of the app's own: its files are the user's only, and a
    /// file written is on disk before it replaces the old one.
    private: bool,
}

impl Workspace {
    /// Opens an agent's workspace. Its files are made readable by others
    /// as any file the user's tools make there (the umask decides).
    pub fn open(root: &Path) -> std::io::Result<Workspace> {
        Workspace::open_with(root, false)
    }

    /// Opens a folder of the app's own (the data folder): files made here
    /// are the user's only.
    pub fn open_private(root: &Path) -> std::io::Result<Workspace> {
        Workspace::open_with(root, true)
    }

    fn open_with(root: &Path, private: bool) -> std::io::Result<Workspace> {
        let file_mode = Mode::from_bits_truncate(if private { 0o600 } else { 0o644 });
        let dir = nix::fcntl::open(root, OFlag::O_PATH | OFlag::O_DIRECTORY | OFlag::O_CLOEXEC, Mode::empty())
            .map_err(std::io::Error::from)?;
        let root = real_path_of(&dir).or_else(|_| root.canonicalize())?;
        Ok(Workspace { root, dir, file_mode, private })
    }

    /// The folder, resolved.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The path an agent named, relative to the folder: no `..`, and an
    /// absolute path only inside the folder.
    pub fn relative(&self, listed: &str) -> Result<PathBuf, PathRefusal> {
        let path = Path::new(listed.trim());
        if path.as_os_str().is_empty() {
            return Err(PathRefusal::Empty);
        }
        if path.components().any(|c| c == Component::ParentDir) {
            return Err(PathRefusal::ParentDir);
        }
        let relative = if path.is_absolute() {
            path.strip_prefix(&self.root).map_err(|_| PathRefusal::OutsideWorkspace)?
        } else {
            path
        };
        let relative: PathBuf = relative.components().filter(|c| matches!(c, Component::Normal(_))).collect();
        if relative.as_os_str().is_empty() {
            return Err(PathRefusal::NotAFile);
        }
        Ok(relative)
    }

    /// Opens `listed` for reading: inside the folder after links are
    /// followed, without blocking, and only a regular file.
    pub fn open_file(&self, listed: &str) -> std::io::Result<File> {
        let relative = self.relative(listed).map_err(PathRefusal::into_io)?;
        let file = self.open_beneath(&relative, OFlag::O_RDONLY | OFlag::O_NONBLOCK | OFlag::O_NOCTTY)?;
        if !file.metadata()?.is_file() {
            return Err(PathRefusal::NotAFile.into_io());
        }
        Ok(file)
    }

    /// Where `listed` really is, when it is a regular file inside the
    /// folder (links followed): for handing to another program.
    pub fn real_path(&self, listed: &str) -> Result<PathBuf, PathRefusal> {
        let relative = self.relative(listed)?;
        let file = self.open_beneath(&relative, OFlag::O_PATH).map_err(|e| refusal_of(&e).unwrap_or(refusal(&e)))?;
        if !file.metadata().is_ok_and(|meta| meta.is_file()) {
            return Err(PathRefusal::NotAFile);
        }
        let path = real_path_of(&file).map_err(|_| PathRefusal::Missing)?;
        if !path.starts_with(&self.root) {
            return Err(PathRefusal::LeadsOutside);
        }
        Ok(path)
    }

    /// Whether `listed` names something (anything) in the folder, without
    /// following a link at its end.
    pub fn exists(&self, listed: &str) -> bool {
        let Ok(relative) = self.relative(listed) else { return false };
        let (Some(parent), Some(name)) = (relative.parent(), relative.file_name()) else { return false };
        self.open_folder(parent).is_ok_and(|dir| fstatat(&dir, name, AtFlags::AT_SYMLINK_NOFOLLOW).is_ok())
    }

    /// Up to `cap` bytes of `listed`.
    pub fn read(&self, listed: &str, cap: usize) -> std::io::Result<Capped> {
        read_capped(self.open_file(listed)?, cap)
    }

    /// `listed` as text when it is there: none when it is missing; an error
    /// when it is there but may not be read.
    pub fn read_if_there(&self, listed: &str, cap: usize) -> std::io::Result<Option<Capped>> {
        match self.read(listed, cap) {
            Err(error) if refusal_of(&error) == Some(PathRefusal::Missing) => Ok(None),
            read => read.map(Some),
        }
    }

    /// The first `head` bytes of `listed` and, when it is longer than
    /// `head + tail`, its last `tail` bytes from the first line start in
    /// them, with a line saying how much was left out between.
    pub fn read_head_and_tail(&self, listed: &str, head: usize, tail: usize) -> std::io::Result<String> {
        let mut file = self.open_file(listed)?;
        let size = file.metadata()?.len();
        let mut bytes = Vec::with_capacity(head.saturating_add(tail).min(size as usize));
        (&mut file).take(head.saturating_add(tail) as u64).read_to_end(&mut bytes)?;
        if size <= bytes.len() as u64 {
            return Ok(String::from_utf8_lossy(&bytes).into_owned());
        }
        let mut text = String::from_utf8_lossy(&bytes).into_owned();
        let mut cut = head.min(text.len());
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        text.truncate(cut);
        let start = size.saturating_sub(tail as u64);
        file.seek(SeekFrom::Start(start))?;
        let mut end = Vec::with_capacity(tail);
        file.take(tail as u64).read_to_end(&mut end)?;
        let from = end.iter().position(|&b| b == b'\n').map_or(end.len(), |at| at + 1);
        let end = String::from_utf8_lossy(&end[from..]);
        let left_out = (start + from as u64).saturating_sub(cut as u64);
        Ok(format!("{text}\n\n[… {left_out} bytes of this summary were not read …]\n\n{end}"))
    }

    /// Writes `bytes` as `listed`, atomically: readers see the old text or
    /// the new. The folder it goes in is reached through no link; the
    /// temporary file has a fresh name and is created exclusively; a link
    /// or FIFO at `listed` itself is replaced, not written through.
    pub fn write(&self, listed: &str, bytes: &[u8]) -> std::io::Result<()> {
        let relative = self.relative(listed).map_err(PathRefusal::into_io)?;
        let (parent, name) = split(&relative)?;
        let dir = self.open_folder(parent)?;
        let (temp, mut file) = self.create_temp(&dir, name)?;
        // The app's own files are kept through a crash: on disk before the
        // rename makes them the file.
        let durable = |file: &File| if self.private { file.sync_all() } else { Ok(()) };
        let written = file
            .write_all(bytes)
            .and_then(|()| durable(&file))
            .and_then(|()| renameat(&dir, temp.as_str(), &dir, name).map_err(std::io::Error::from));
        if written.is_err()
            && let Err(error) = unlinkat(&dir, temp.as_str(), UnlinkatFlags::NoRemoveDir)
            && error != Errno::ENOENT
        {
            tracing::warn!(%error, temp, "a temporary file could not be removed");
        }
        written
    }

    /// Appends `bytes` to `listed`, starting a new file with `header`. Only
    /// a regular file is appended to: a link at its name is refused, a FIFO
    /// never blocks.
    pub fn append(&self, listed: &str, header: &[u8], bytes: &[u8]) -> std::io::Result<()> {
        let relative = self.relative(listed).map_err(PathRefusal::into_io)?;
        let (parent, name) = split(&relative)?;
        let dir = self.open_folder(parent)?;
        let flags = OFlag::O_WRONLY
            | OFlag::O_APPEND
            | OFlag::O_CREAT
            | OFlag::O_NOFOLLOW
            | OFlag::O_NONBLOCK
            | OFlag::O_NOCTTY
            | OFlag::O_CLOEXEC;
        let mut file = File::from(openat(&dir, name, flags, self.file_mode).map_err(|errno| match errno {
            Errno::ELOOP => PathRefusal::Link.into_io(),
            Errno::ENXIO => PathRefusal::NotAFile.into_io(),
            errno => errno.into(),
        })?);
        let meta = file.metadata()?;
        if !meta.is_file() {
            return Err(PathRefusal::NotAFile.into_io());
        }
        if meta.len() == 0 {
            file.write_all(header)?;
        }
        file.write_all(bytes)
    }

    /// Makes the folder `listed` if it is not there (its parent must be);
    /// a link or file in its place is refused.
    pub fn create_folder(&self, listed: &str) -> std::io::Result<()> {
        let relative = self.relative(listed).map_err(PathRefusal::into_io)?;
        let (parent, name) = split(&relative)?;
        let dir = self.open_folder(parent)?;
        match mkdirat(&dir, name, Mode::from_bits_truncate(if self.private { 0o700 } else { 0o755 })) {
            Ok(()) => Ok(()),
            Err(Errno::EEXIST) => match fstatat(&dir, name, AtFlags::AT_SYMLINK_NOFOLLOW) {
                Ok(stat) if SFlag::from_bits_truncate(stat.st_mode) & SFlag::S_IFMT == SFlag::S_IFDIR => Ok(()),
                Ok(_) => Err(PathRefusal::NotAFolder.into_io()),
                Err(errno) => Err(errno.into()),
            },
            Err(errno) => Err(errno.into()),
        }
    }

    /// Removes the file `listed` (a link is removed, not followed).
    pub fn remove(&self, listed: &str) -> std::io::Result<()> {
        let relative = self.relative(listed).map_err(PathRefusal::into_io)?;
        let (parent, name) = split(&relative)?;
        let dir = self.open_folder(parent)?;
        unlinkat(&dir, name, UnlinkatFlags::NoRemoveDir).map_err(std::io::Error::from)
    }

    /// Opens `relative` beneath the folder with `flags`, links inside it
    /// followed.
    fn open_beneath(&self, relative: &Path, flags: OFlag) -> std::io::Result<File> {
        let flags = flags | OFlag::O_CLOEXEC;
        let how =
            || OpenHow::new().flags(flags).resolve(ResolveFlag::RESOLVE_BENEATH | ResolveFlag::RESOLVE_NO_MAGICLINKS);
        let mut attempt = 0;
        loop {
            match openat2(&self.dir, relative, how()) {
                Ok(fd) => return Ok(File::from(fd)),
                Err(Errno::EAGAIN) if attempt < RACE_RETRIES => attempt += 1,
                // An absolute link is refused by RESOLVE_BENEATH even when
                // it points inside: resolve it, and open what it names
                // beneath the folder again (still checked by the kernel).
                Err(Errno::EXDEV) => return self.open_through_absolute_link(relative, how()),
                Err(errno) if openat2_missing(errno) => return self.open_and_check(relative, flags),
                Err(errno) => return Err(open_error(errno)),
            }
        }
    }

    fn open_through_absolute_link(&self, relative: &Path, how: OpenHow) -> std::io::Result<File> {
        let resolved = self.root.join(relative).canonicalize().map_err(|_| PathRefusal::LeadsOutside.into_io())?;
        let inside = resolved.strip_prefix(&self.root).map_err(|_| PathRefusal::LeadsOutside.into_io())?;
        match openat2(&self.dir, inside, how) {
            Ok(fd) => Ok(File::from(fd)),
            Err(Errno::EXDEV) => Err(PathRefusal::LeadsOutside.into_io()),
            Err(errno) => Err(open_error(errno)),
        }
    }

    /// Without `openat2`: opens without blocking, then checks where the
    /// descriptor really points before anything is read from it.
    fn open_and_check(&self, relative: &Path, flags: OFlag) -> std::io::Result<File> {
        let fd = openat(&self.dir, relative, flags, Mode::empty()).map_err(open_error)?;
        if !real_path_of(&fd)?.starts_with(&self.root) {
            return Err(PathRefusal::LeadsOutside.into_io());
        }
        Ok(File::from(fd))
    }

    /// The folder `relative` (the root for an empty path), reached through
    /// no link at all.
    fn open_folder(&self, relative: &Path) -> std::io::Result<OwnedFd> {
        let flags = OFlag::O_PATH | OFlag::O_DIRECTORY | OFlag::O_CLOEXEC;
        let how = OpenHow::new().flags(flags).resolve(ResolveFlag::RESOLVE_BENEATH | ResolveFlag::RESOLVE_NO_SYMLINKS);
        let target = if relative.as_os_str().is_empty() { Path::new(".") } else { relative };
        let mut attempt = 0;
        loop {
            match openat2(&self.dir, target, how) {
                Ok(fd) => return Ok(fd),
                Err(Errno::EAGAIN) if attempt < RACE_RETRIES => attempt += 1,
                Err(errno) if openat2_missing(errno) => return self.walk_to_folder(relative),
                Err(Errno::ELOOP | Errno::EXDEV) => return Err(PathRefusal::Link.into_io()),
                Err(Errno::ENOTDIR) => return Err(PathRefusal::NotAFolder.into_io()),
                Err(errno) => return Err(open_error(errno)),
            }
        }
    }

    /// Without `openat2`: one component at a time, none of them a link.
    fn walk_to_folder(&self, relative: &Path) -> std::io::Result<OwnedFd> {
        let flags = OFlag::O_PATH | OFlag::O_DIRECTORY | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC;
        let mut dir = openat(&self.dir, ".", flags, Mode::empty())?;
        for part in relative.components() {
            let Component::Normal(part) = part else { return Err(PathRefusal::ParentDir.into_io()) };
            let is_link = |dir: &OwnedFd| {
                fstatat(dir, part, AtFlags::AT_SYMLINK_NOFOLLOW)
                    .is_ok_and(|stat| SFlag::from_bits_truncate(stat.st_mode) & SFlag::S_IFMT == SFlag::S_IFLNK)
            };
            dir = openat(&dir, part, flags, Mode::empty()).map_err(|errno| match errno {
                // O_NOFOLLOW with O_DIRECTORY says a link is not a folder.
                Errno::ELOOP => PathRefusal::Link.into_io(),
                Errno::ENOTDIR if is_link(&dir) => PathRefusal::Link.into_io(),
                Errno::ENOTDIR => PathRefusal::NotAFolder.into_io(),
                errno => open_error(errno),
            })?;
        }
        Ok(dir)
    }

    /// A new temporary file beside `name` in `dir`, of a name no one made
    /// before (created exclusively, never through a link).
    fn create_temp(&self, dir: &OwnedFd, name: &OsStr) -> std::io::Result<(String, File)> {
        let flags = OFlag::O_WRONLY
            | OFlag::O_CREAT
            | OFlag::O_EXCL
            | OFlag::O_NOFOLLOW
            | OFlag::O_NONBLOCK
            | OFlag::O_NOCTTY
            | OFlag::O_CLOEXEC;
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
        let mut last = Errno::EEXIST;
        for _ in 0..TEMP_NAME_ATTEMPTS {
            let count = TEMP_COUNTER.fetch_add(1, Ordering::Relaxed);
            let temp = format!(".{}.{}-{count}-{nanos}.switchboard-tmp", name.to_string_lossy(), std::process::id());
            match openat(dir, temp.as_str(), flags, self.file_mode) {
                Ok(fd) => return Ok((temp, File::from(fd))),
                Err(Errno::EEXIST) => last = Errno::EEXIST,
                Err(errno) => return Err(errno.into()),
            }
        }
        Err(last.into())
    }
}

/// A relative path's folder and file name.
fn split(relative: &Path) -> std::io::Result<(&Path, &OsStr)> {
    match (relative.parent(), relative.file_name()) {
        (Some(parent), Some(name)) => Ok((parent, name)),
        _ => Err(PathRefusal::Empty.into_io()),
    }
}

/// Reads up to `cap` bytes of an open regular file.
pub fn read_capped(file: File, cap: usize) -> std::io::Result<Capped> {
    let size = file.metadata()?.len();
    let mut bytes = Vec::with_capacity(cap.min(size as usize));
    file.take(cap as u64).read_to_end(&mut bytes)?;
    let truncated = size > bytes.len() as u64;
    Ok(Capped { text: String::from_utf8_lossy(&bytes).into_owned(), size, truncated })
}

/// What an open failure means for a path below the folder.
fn open_error(errno: Errno) -> std::io::Error {
    match errno {
        Errno::ENOENT => PathRefusal::Missing.into_io(),
        Errno::EXDEV | Errno::ELOOP => PathRefusal::LeadsOutside.into_io(),
        Errno::ENXIO => PathRefusal::NotAFile.into_io(),
        errno => errno.into(),
    }
}

/// A refusal for an I/O error that was not one.
fn refusal(error: &std::io::Error) -> PathRefusal {
    match error.kind() {
        std::io::ErrorKind::NotFound => PathRefusal::Missing,
        _ => PathRefusal::NotAFile,
    }
}

/// Where an open descriptor really points.
fn real_path_of(fd: &impl AsFd) -> std::io::Result<PathBuf> {
    std::fs::read_link(format!("/proc/self/fd/{}", fd.as_fd().as_raw_fd()))
}

#[cfg(test)]
mod tests;
