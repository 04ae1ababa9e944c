use std::io::Write;

use super::*;

const ANSWER_1: &str = r#"{"type":"assistant","timestamp":"2026-11-29T10:00:00Z","message":{"id":"m1","model":"claude-x","usage":{"input_tokens":100,"output_tokens":1}}}"#;
const ANSWER_1_FINAL: &str = r#"{"type":"assistant","timestamp":"2026-11-29T10:00:00Z","message":{"id":"m1","model":"claude-x","usage":{"input_tokens":100,"output_tokens":20}}}"#;
const ANSWER_2: &str = r#"{"type":"assistant","timestamp":"2026-11-29T10:00:05Z","message":{"id":"m2","model":"claude-x","usage":{"input_tokens":50,"output_tokens":5}}}"#;

struct Home {
    dir: tempfile::TempDir,
}

impl Home {
    fn new() -> Home {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("projects/w")).unwrap();
        Home { dir }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join("projects/w").join(name)
    }

    fn append(&self, name: &str, text: &str) {
        let mut file = std::fs::OpenOptions::new().create(true).append(true).open(self.path(name)).unwrap();
        file.write_all(text.as_bytes()).unwrap();
    }

    fn tracked(&self, name: &str) -> Tracked {
        let followed = Followed {
            path: self.path(name).display().to_string(),
            root: self.dir.path().to_path_buf(),
            kind: Transcript::ClaudeCode,
            offset: 0,
            reading: Reading::default(),
        };
        Tracked { followed, identity: None, skipping: false, told: None }
    }
}

/// Reads as the thread does, keeping the offset.
fn step(file: &mut Tracked) -> UsageRead {
    let read = read_more(file);
    file.followed.offset = read.offset;
    file.followed.reading = read.reading.clone();
    read
}

fn keys(read: &UsageRead) -> Vec<(String, u64)> {
    read.answers.iter().map(|a| (a.key.clone(), a.tokens.output)).collect()
}

#[test]
fn only_what_was_added_is_read_and_a_line_counts_once_it_is_whole() {
    let home = Home::new();
    let mut file = home.tracked("s.jsonl");
    // Not there yet: nothing, and no problem (Claude Code writes late).
    assert_eq!(
        step(&mut file),
        UsageRead {
            path: file.followed.path.clone(),
            offset: 0,
            reading: Reading::default(),
            answers: vec![],
            problem: None,
            caught_up: true
        }
    );
    home.append("s.jsonl", &format!("{{\"type\":\"user\"}}\n{ANSWER_1}\n"));
    let read = step(&mut file);
    assert_eq!(keys(&read), [("m1".to_owned(), 1)]);
    // Half a line: left for the next look.
    let (head, tail) = ANSWER_1_FINAL.split_at(40);
    home.append("s.jsonl", head);
    let before = file.followed.offset;
    assert!(step(&mut file).answers.is_empty());
    assert_eq!(file.followed.offset, before);
    home.append("s.jsonl", &format!("{tail}\n{ANSWER_2}\n"));
    // The answer written again, with its final count, then the next one.
    assert_eq!(keys(&step(&mut file)), [("m1".to_owned(), 20), ("m2".to_owned(), 5)]);
    assert_eq!(file.followed.offset, std::fs::metadata(home.path("s.jsonl")).unwrap().len());
    assert!(step(&mut file).answers.is_empty());
}

#[test]
fn a_file_cut_short_or_replaced_is_read_again_from_its_start() {
    let home = Home::new();
    let mut file = home.tracked("s.jsonl");
    home.append("s.jsonl", &format!("{ANSWER_1}\n{ANSWER_2}\n"));
    assert_eq!(step(&mut file).answers.len(), 2);
    std::fs::write(home.path("s.jsonl"), format!("{ANSWER_2}\n")).unwrap();
    let read = step(&mut file);
    assert_eq!(keys(&read), [("m2".to_owned(), 5)]);
    assert!(read.problem.unwrap().contains("read again from its start"));
    // Replaced by another file of any length (written beside it, then
    // renamed over it, as editors and log rotation do).
    home.append("new.jsonl", &format!("{ANSWER_1}\n{ANSWER_2}\n{ANSWER_2}\n"));
    std::fs::rename(home.path("new.jsonl"), home.path("s.jsonl")).unwrap();
    assert_eq!(step(&mut file).answers.len(), 3);
}

#[test]
fn bad_lines_and_a_huge_one_are_passed_over_in_words() {
    let home = Home::new();
    let mut file = home.tracked("s.jsonl");
    home.append("s.jsonl", &format!("{{\"usage\" broken\n{ANSWER_1}\n"));
    let read = step(&mut file);
    assert_eq!(keys(&read), [("m1".to_owned(), 1)]);
    assert_eq!(read.problem.as_deref(), Some("1 line(s) that do not read as JSON were skipped"));
    // A line longer than a chunk, with usage in it, then a good one.
    let huge = format!("{{\"usage\":\"{}\"}}\n", "x".repeat(MAX_LINE + 10));
    home.append("s.jsonl", &huge);
    home.append("s.jsonl", &format!("{ANSWER_2}\n"));
    let mut answers = Vec::new();
    let mut problems = Vec::new();
    for _ in 0..4 {
        let read = step(&mut file);
        answers.extend(keys(&read));
        problems.extend(read.problem);
    }
    assert_eq!(answers, [("m2".to_owned(), 5)]);
    assert_eq!(problems, ["a line longer than 4 MiB was skipped"]);
}

#[test]
fn a_file_outside_the_clis_folder_or_a_link_is_not_read() {
    let home = Home::new();
    let elsewhere = tempfile::tempdir().unwrap();
    let outside = elsewhere.path().join("s.jsonl");
    std::fs::write(&outside, format!("{ANSWER_1}\n")).unwrap();
    std::os::unix::fs::symlink(&outside, home.path("link.jsonl")).unwrap();
    std::fs::write(home.dir.path().join("settings.jsonl"), format!("{ANSWER_1}\n")).unwrap();
    for path in [
        outside.display().to_string(),
        format!("{}/projects/../../{}", home.dir.path().display(), outside.display()),
        home.dir.path().join("settings.jsonl").display().to_string(),
        home.path("link.jsonl").display().to_string(),
    ] {
        let mut file = home.tracked("x.jsonl");
        file.followed.path = path.clone();
        let read = step(&mut file);
        assert!(read.answers.is_empty(), "{path}");
        assert!(read.problem.is_some(), "{path}: said in words");
    }
}

#[test]
fn the_thread_tells_what_it_read_and_ends_with_its_handle() {
    let home = Home::new();
    let (tx, mut rx) = tokio::sync::mpsc::channel(4);
    let follower = Follower::start(tx);
    home.append("s.jsonl", &format!("{ANSWER_1}\n"));
    follower.follow(home.tracked("s.jsonl").followed);
    let read = rx.blocking_recv().unwrap();
    assert_eq!(keys(&read), [("m1".to_owned(), 1)]);
    home.append("s.jsonl", &format!("{ANSWER_2}\n"));
    follower.look();
    let read = rx.blocking_recv().unwrap();
    assert_eq!(keys(&read), [("m2".to_owned(), 5)]);
    drop(follower);
    assert!(rx.blocking_recv().is_none(), "the thread ended");
}

#[test]
fn codexs_sign_in_mode_says_whether_it_pays_by_plan() {
    let cases = [
        (r#"{"auth_mode":"chatgpt","tokens":{"id_token":"x"}}"#, true),
        (r#"{"auth_mode":"apikey","OPENAI_API_KEY":"sk-x"}"#, false),
        (r#"{"OPENAI_API_KEY":null,"tokens":{"id_token":"x"}}"#, true),
        (r#"{"OPENAI_API_KEY":"sk-x","tokens":null}"#, false),
        ("not json", false),
    ];
    for (auth, plan) in cases {
        assert_eq!(codex_signed_in_with_plan(auth), plan, "{auth}");
    }
}

#[test]
fn a_follower_whose_engine_reads_no_more_still_ends_with_its_handle() {
    let home = Home::new();
    // Room for one read, never taken: the thread waits to hand on the next.
    let (tx, _rx) = tokio::sync::mpsc::channel(1);
    let follower = Follower::start(tx);
    for name in ["a.jsonl", "b.jsonl", "c.jsonl"] {
        home.append(name, &format!("{ANSWER_1}\n"));
        follower.follow(home.tracked(name).followed);
    }
    follower.look();
    // Dropping it returns (the engine's stop does this with its receiver unread).
    drop(follower);
}
