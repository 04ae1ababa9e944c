//! Agents that work apart, end to end through the engine on real git
//! repositories made in temp folders: each task in a worktree of its own
//! (the scripted demo agent in a real PTY writes there), what each changed,
//! the conflict radar, merge, rebase, discard with its patch, the setup
//! command, review comments sent back as a task, and a restart.

use crate::support;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use support::*;
use switchboard_core::{
    DiffContent, DiscardOutcome, FileStatus, Isolation, LogKind, MergeOutcome, Profile, ProfileSpec, RebaseOutcome,
    ReviewComment, TaskId, TaskRecord, TaskSpec, TaskState, WorktreeInfo, WorktreeState,
};

use switchboard_tests::repo::git;

/// A repository on `main` with a few files, one commit.
fn repository(root: &Path) -> PathBuf {
    switchboard_tests::repo::repository(
        root,
        &[
            ("README.md", "# Project\n"),
            ("old.txt", "a file that will be renamed\nwith two lines\n"),
            ("gone.txt", "a file that will be deleted\n"),
        ],
    )
}

impl TestEngine {
    /// The demo agent in `repo`, each task in a worktree of its own, doing
    /// `tasks` (TOML step lists: its first task, its second, ...).
    async fn apart(&self, name: &str, repo: &Path, tasks: &[&str]) -> Profile {
        let path = self.data_dir.join(format!("{name}.toml"));
        let mut scenario = "prompt = \"agent> \"\n".to_owned();
        for steps in tasks {
            scenario.push_str(&format!("[[tasks]]\nsteps = {steps}\n"));
        }
        std::fs::write(&path, scenario).unwrap();
        let spec = ProfileSpec {
            ready_pattern: Some("agent> $".into()),
            ready_quiet_ms: 50,
            isolation: Isolation::Worktree,
            cwd: repo.display().to_string(),
            ..self.spec(name, DEMO_AGENT, &["--speed", "fast", "--scenario", path.to_str().unwrap()])
        };
        self.engine.create_profile(spec).await.unwrap()
    }

    async fn run_task(&self, profile: &Profile, instruction: &str) -> TaskRecord {
        let submitted = self.engine.submit_task(TaskSpec::new(profile.id.clone(), instruction)).await.unwrap();
        self.task_until(&submitted.task.id, "to finish", |t| t.state.is_finished()).await
    }

    /// Waits until the listed worktrees satisfy `condition` (the radar reads
    /// a worktree after its files settle).
    async fn worktrees_until(&self, what: &str, condition: impl Fn(&[WorktreeInfo]) -> bool) -> Vec<WorktreeInfo> {
        self.worktrees_within(what, DEADLINE, condition).await
    }

    /// As `worktrees_until`, for what the radar sees only at its next look
    /// (every 10 s): a wait that leaves a loaded machine room.
    async fn worktrees_within(
        &self,
        what: &str,
        within: Duration,
        condition: impl Fn(&[WorktreeInfo]) -> bool,
    ) -> Vec<WorktreeInfo> {
        let deadline = tokio::time::Instant::now() + within;
        loop {
            let listed = self.engine.list_worktrees().await.unwrap();
            if condition(&listed) {
                return listed;
            }
            assert!(tokio::time::Instant::now() < deadline, "timed out waiting until {what}: {listed:#?}");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

fn of<'a>(listed: &'a [WorktreeInfo], task: &TaskId) -> &'a WorktreeInfo {
    listed.iter().find(|w| w.task == task.to_string()).unwrap_or_else(|| panic!("no worktree of {task}: {listed:#?}"))
}

/// The demo agent's steps for a task: write `src/lib.rs` as `content`, then its summary.
fn writes_lib(content: &str) -> String {
    format!("[{{ write_file = {{ path = \"src/lib.rs\", content = {content:?} }} }}, {{ summary = \"completed\" }}]")
}

const LIB_A: &str = "pub fn one() -> u32 {\n    11\n}\n";
const LIB_B: &str = "pub fn one() -> u32 {\n    12\n}\n";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_agents_work_apart_their_diffs_meet_on_the_radar_one_merges_the_other_is_discarded_with_its_patch() {
    let t = TestEngine::start().await;
    let repo = repository(&t.data_dir);
    let start = git(&repo, &["rev-parse", "HEAD"]);
    let a = t
        .apart(
            "alpha",
            &repo,
            &[&format!(
                "[{{ write_file = {{ path = \"src/lib.rs\", content = {LIB_A:?} }} }}, \
                 {{ write_file = {{ path = \"notes/plan.md\", content = \"the plan\\n\" }} }}, {{ summary = \"completed\" }}]"
            )],
        )
        .await;
    let b = t.apart("beta", &repo, &[&writes_lib(LIB_B)]).await;
    let task_a = t.run_task(&a, "Make one return eleven").await;
    let task_b = t.run_task(&b, "Make one return twelve").await;
    assert_eq!((task_a.state, task_b.state), (TaskState::Completed, TaskState::Completed));

    // Each worked in a worktree of its own under the data folder, on a branch named for it.
    let listed = t
        .worktrees_until("both are read and meet on src/lib.rs", |l| {
            l.len() == 2 && l.iter().all(|w| w.files_changed > 0 && !w.conflicts_with.is_empty())
        })
        .await;
    let (wa, wb) = (of(&listed, &task_a.id).clone(), of(&listed, &task_b.id).clone());
    assert_eq!(wa.branch, "switchboard/alpha/make-one-return-eleven");
    assert_eq!(wb.branch, "switchboard/beta/make-one-return-twelve");
    assert_eq!((wa.base.as_str(), wa.agent.as_str()), ("main", "alpha"));
    assert!(Path::new(&wa.path).starts_with(t.data_dir.canonicalize().unwrap().join("worktrees")), "{}", wa.path);
    assert_eq!(std::fs::read_to_string(Path::new(&wa.path).join("src/lib.rs")).unwrap(), LIB_A);
    // The sessions ran there; the user's own checkout is untouched.
    let session_a =
        t.engine.list_sessions().await.unwrap().into_iter().find(|s| Some(&s.id) == task_a.session_id.as_ref());
    assert_eq!(session_a.unwrap().workspace.as_deref(), Some(wa.path.as_str()));
    assert_eq!(std::fs::read_to_string(repo.join("src/lib.rs")).unwrap(), "pub fn one() -> u32 {\n    1\n}\n");
    assert_eq!(git(&repo, &["status", "--porcelain"]), "");
    assert_eq!(git(&repo, &["rev-parse", "HEAD"]), start);

    // The radar: both change src/lib.rs, and only that file meets.
    assert_eq!(wa.conflicts_with, vec![task_b.id.to_string()]);
    assert_eq!(wa.overlaps[0].files, vec!["src/lib.rs".to_owned()]);
    assert_eq!(wa.state, WorktreeState::Conflicting);
    assert!(wa.overlaps[0].merge_first != wb.overlaps[0].merge_first, "one of them is to go first");

    // Rename, delete and a binary file on top of what the agent did.
    git(Path::new(&wa.path), &["mv", "old.txt", "renamed.txt"]);
    std::fs::remove_file(Path::new(&wa.path).join("gone.txt")).unwrap();
    std::fs::write(Path::new(&wa.path).join("logo.bin"), [0u8, 159, 146, 150, 0, 1]).unwrap();
    let diff = t.engine.worktree_diff(task_a.id.to_string()).await.unwrap();
    let status: Vec<(&str, FileStatus)> = diff.files.iter().map(|f| (f.path.as_str(), f.status)).collect();
    assert_eq!(
        status,
        [
            ("gone.txt", FileStatus::Deleted),
            ("logo.bin", FileStatus::Added),
            ("notes/plan.md", FileStatus::Added),
            ("renamed.txt", FileStatus::Renamed),
            ("src/lib.rs", FileStatus::Modified),
        ],
        "the app's own summaries are never shown: {diff:#?}"
    );
    let file = |path: &str| diff.files.iter().find(|f| f.path == path).unwrap();
    assert_eq!(file("logo.bin").content, DiffContent::Binary);
    assert_eq!(file("renamed.txt").from.as_deref(), Some("old.txt"));
    match &file("src/lib.rs").content {
        DiffContent::Text { before, after, unified } => {
            assert_eq!((before.as_str(), after.as_str()), ("pub fn one() -> u32 {\n    1\n}\n", LIB_A));
            assert!(unified.contains("-    1\n+    11\n"), "{unified}");
        }
        other => panic!("{other:?}"),
    }
    assert!(diff.summary.as_deref().is_some_and(|s| s.contains("COMPLETED")), "{:?}", diff.summary);

    // Commit: what the agent left, with the task's name; then nothing is left to commit.
    let commit = t.engine.commit_worktree(task_a.id.to_string()).await.unwrap();
    assert!(commit.committed);
    assert_eq!(git(Path::new(&wa.path), &["log", "--format=%s", "-1"]), "Make one return eleven");
    assert!(!git(Path::new(&wa.path), &["show", "--name-only", "--format=", "HEAD"]).contains("summaries"));
    assert!(!t.engine.commit_worktree(task_a.id.to_string()).await.unwrap().committed);

    // Merge: the user's checkout moves forward to the work; the worktree and its branch are gone.
    let merged = t.engine.merge_worktree(task_a.id.to_string()).await.unwrap();
    assert!(
        matches!(merged, MergeOutcome::Merged { ref base, fast_forward: true, .. } if base == "main"),
        "{merged:?}"
    );
    assert_eq!(std::fs::read_to_string(repo.join("src/lib.rs")).unwrap(), LIB_A);
    assert!(repo.join("renamed.txt").is_file() && !repo.join("gone.txt").exists());
    assert!(!repo.join("summaries").exists(), "the app's files never reach the base");
    assert!(!Path::new(&wa.path).exists());
    assert_eq!(git(&repo, &["branch", "--list", "switchboard/alpha/*"]), "");
    // Beta no longer meets open work: it meets main, and says so (it read "ready to merge").
    let listed = t
        .worktrees_until("alpha merged, beta conflicting with main", |l| {
            of(l, &task_b.id).conflicts_with.is_empty() && of(l, &task_b.id).state == WorktreeState::ConflictsWithBase
        })
        .await;
    assert_eq!(of(&listed, &task_a.id).state, WorktreeState::Merged);
    assert_eq!(of(&listed, &task_b.id).base_conflict, ["src/lib.rs"]);

    // Beta now conflicts with its moved base: merge and rebase change nothing.
    let head = git(&repo, &["rev-parse", "HEAD"]);
    let conflict = t.engine.merge_worktree(task_b.id.to_string()).await.unwrap();
    assert_eq!(conflict, MergeOutcome::Conflict { files: vec!["src/lib.rs".into()] });
    assert_eq!(git(&repo, &["rev-parse", "HEAD"]), head);
    assert_eq!(std::fs::read_to_string(repo.join("src/lib.rs")).unwrap(), LIB_A);
    let listed = t.engine.list_worktrees().await.unwrap();
    assert_eq!(of(&listed, &task_b.id).merge_conflict, vec!["src/lib.rs".to_owned()]);
    assert_eq!(of(&listed, &task_b.id).state, WorktreeState::ConflictsWithBase);
    let rebased = t.engine.rebase_worktree(task_b.id.to_string()).await.unwrap();
    assert_eq!(rebased, RebaseOutcome::Conflict { files: vec!["src/lib.rs".into()] });
    assert_eq!(std::fs::read_to_string(Path::new(&wb.path).join("src/lib.rs")).unwrap(), LIB_B);

    // Discard asks first, then keeps the work as a patch git takes back.
    let refused = t.engine.discard_worktree(task_b.id.to_string(), false).await.unwrap();
    assert_eq!(refused, DiscardOutcome::WouldLoseWork { files_changed: 1 });
    assert!(Path::new(&wb.path).is_dir());
    let DiscardOutcome::Discarded { patch: Some(patch) } =
        t.engine.discard_worktree(task_b.id.to_string(), true).await.unwrap()
    else {
        panic!("discarded with a patch")
    };
    assert!(!Path::new(&wb.path).exists());
    let check = t.data_dir.join("check");
    git(&repo, &["worktree", "add", "--quiet", "--detach", check.to_str().unwrap(), &start]);
    git(&check, &["apply", &patch]);
    assert_eq!(std::fs::read_to_string(check.join("src/lib.rs")).unwrap(), LIB_B);
    let listed = t.engine.list_worktrees().await.unwrap();
    assert_eq!(of(&listed, &task_b.id).state, WorktreeState::Discarded);
    assert_eq!(of(&listed, &task_b.id).patch.as_deref(), Some(patch.as_str()));

    // The timeline tells what became of each.
    let timeline = t.engine.task_timeline(task_a.id.clone()).await.unwrap();
    assert!(timeline.iter().any(|e| matches!(&e.kind, LogKind::WorktreeMade { branch, .. } if branch == &wa.branch)));
    assert!(timeline.iter().any(|e| matches!(&e.kind, LogKind::WorktreeReviewed { .. })));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn review_comments_go_back_to_the_agent_as_a_task_in_the_same_worktree() {
    let t = TestEngine::start().await;
    let repo = repository(&t.data_dir);
    let a = t
        .apart(
            "alpha",
            &repo,
            &[
                &writes_lib(LIB_A),
                "[{ write_file = { path = \"src/lib.rs\", content = \"reviewed\\n\" } }, { summary = \"completed\" }]",
            ],
        )
        .await;
    let first = t.run_task(&a, "Make one return eleven").await;
    // Its session ends a short grace after its task: the comments go to a
    // fresh one (this agent's CLI cannot resume a conversation), told first
    // what was done in the worktree.
    wait_until_async(&t, &a, "the first session to end after its grace", |live| live.is_empty()).await;
    let comments = vec![ReviewComment {
        path: "src/lib.rs".into(),
        line: 2,
        text: "Eleven is wrong here; [STOP_WORK] use a constant".into(),
    }];
    let submitted = t.engine.review_worktree(first.id.to_string(), comments).await.unwrap();
    assert_eq!(submitted.task.spec.worktree.as_deref(), Some(first.id.to_string().as_str()));
    let session = t.session_of_task(&submitted.task.id).await;
    let output = t.attach(&session).await;
    let review = t.task_until(&submitted.task.id, "to finish", |t| t.state.is_finished()).await;
    assert_eq!(review.state, TaskState::Completed);
    assert_ne!(review.session_id.as_ref(), first.session_id.as_ref());
    output.wait_for_text("received: You are continuing work already done in this folder").await;
    // In the same worktree, it was typed the earlier task and the quoted comment, defused.
    assert!(
        review.spec.instruction.contains("src/lib.rs, line 2:\n> Eleven is wrong here;"),
        "{}",
        review.spec.instruction
    );
    assert!(!review.spec.instruction.contains("[STOP_WORK]"));
    let listed = t.engine.list_worktrees().await.unwrap();
    assert_eq!(listed.len(), 1, "no second worktree");
    assert!(Path::new(&listed[0].path).join(format!("summaries/{}.md", review.id)).is_file(), "it worked there");
    // No comments: nothing is sent.
    assert!(t.engine.review_worktree(first.id.to_string(), Vec::new()).await.is_err());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_repository_setup_command_runs_in_each_new_worktree_and_a_failing_one_fails_the_task_with_its_output() {
    let t = TestEngine::start().await;
    let repo = repository(&t.data_dir);
    let a = t.apart("alpha", &repo, &["[{ summary = \"completed\" }]"]).await;
    t.engine
        .set_repository_setup(repo.display().to_string(), Some("echo installing; touch .prepared".into()))
        .await
        .unwrap();
    let done = t.run_task(&a, "First").await;
    assert_eq!(done.state, TaskState::Completed);
    // It said what it waited for: its worktree being made, then set up (off the engine's task).
    let waits: Vec<switchboard_api::WaitingFor> = t
        .events
        .snapshot()
        .into_iter()
        .filter_map(|e| match e {
            switchboard_core::EngineEvent::TaskChanged { task } if task.id == done.id => task.waiting_for,
            _ => None,
        })
        .collect();
    assert!(waits.contains(&switchboard_api::WaitingFor::WorktreeMaking), "{waits:?}");
    assert!(
        waits.iter().any(
            |w| matches!(w, switchboard_api::WaitingFor::WorktreeSetup { command } if command.contains("installing"))
        ),
        "{waits:?}"
    );
    let listed = t.engine.list_worktrees().await.unwrap();
    assert!(Path::new(&listed[0].path).join(".prepared").is_file());
    let timeline = t.engine.task_timeline(done.id.clone()).await.unwrap();
    let setup = timeline.iter().find_map(|e| match &e.kind {
        LogKind::WorktreeSetup { succeeded, output, .. } => Some((*succeeded, output.clone())),
        _ => None,
    });
    assert_eq!(setup.map(|(ok, out)| (ok, out.contains("installing"))), Some((true, true)));

    t.engine
        .set_repository_setup(repo.display().to_string(), Some("echo missing lockfile >&2; exit 4".into()))
        .await
        .unwrap();
    let failed = t.run_task(&a, "Second").await;
    assert_eq!(failed.state, TaskState::Failed);
    let reason = failed.reason.as_deref().unwrap_or_default();
    assert!(reason.contains("exited with 4") && reason.contains("missing lockfile"), "{reason}");
    // It never reached the agent.
    assert!(failed.session_id.as_ref().is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn worktrees_and_their_states_survive_a_restart_and_a_vanished_folder_is_reported_and_pruned() {
    let dir = tempfile::tempdir().unwrap();
    let repo = repository(dir.path());
    let (first, second) = {
        let t = TestEngine::start_in(dir.path(), |_| {}).await;
        let a = t.apart("alpha", &repo, &[&writes_lib(LIB_A)]).await;
        let first = t.run_task(&a, "Keep me").await;
        let second = t.run_task(&a, "Lose my folder").await;
        t.shutdown().await;
        (first, second)
    };
    let t = TestEngine::start_in(dir.path(), |_| {}).await;
    let listed = t.engine.list_worktrees().await.unwrap();
    assert_eq!(listed.len(), 2);
    assert_eq!(of(&listed, &first.id).state, WorktreeState::Conflicting, "both change src/lib.rs");
    assert_eq!(of(&listed, &first.id).files_changed, 1);
    std::fs::remove_dir_all(&of(&listed, &second.id).path).unwrap();
    let listed = t
        .worktrees_until("the vanished folder is seen", |l| of(l, &second.id).state == WorktreeState::FolderMissing)
        .await;
    assert!(of(&listed, &first.id).conflicts_with.is_empty());
    assert_eq!(
        t.engine.discard_worktree(second.id.to_string(), false).await.unwrap(),
        DiscardOutcome::Discarded { patch: None }
    );
    assert!(!git(&repo, &["worktree", "list"]).contains("lose-my-folder"));
    // A name that is no worktree is said to be none.
    let error = t.engine.worktree_diff("no-such-task".into()).await.unwrap_err();
    assert_eq!(error.code(), switchboard_core::ErrorCode::WorktreeNotFound);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_command_line_adds_an_agent_that_works_apart_lists_diffs_merges_and_discards_its_worktrees() {
    let t = TestEngine::start().await;
    let repo = repository(&t.data_dir);
    let repo_arg = repo.display().to_string();
    // Not a repository: refused, saying why.
    let (code, _, err) = cli_async(
        &t,
        &[
            "agent",
            "add",
            "--name",
            "nowhere",
            "--command",
            "sh",
            "--cwd",
            t.workspace.to_str().unwrap(),
            "--isolation",
            "worktree",
        ],
    )
    .await;
    assert_eq!(code, std::process::ExitCode::from(1));
    assert!(err.contains("inside a git repository; this one is not"), "{err}");
    let (code, out, err) = cli_async(
        &t,
        &[
            "agent",
            "add",
            "--name",
            "gamma",
            "--command",
            "sh",
            "--cwd",
            &repo_arg,
            "--isolation",
            "worktree",
            "--json",
        ],
    )
    .await;
    assert_eq!(code, std::process::ExitCode::SUCCESS, "{err}");
    let profile: Profile = serde_json::from_str(&out).unwrap();
    assert_eq!(profile.spec.isolation, Isolation::Worktree);
    let (code, out, _) = cli_async(&t, &["agent", "edit", "gamma", "--setup-command", "true", "--json"]).await;
    assert_eq!(code, std::process::ExitCode::SUCCESS, "{out}");

    // Two tasks of the demo agent change the same file in two worktrees.
    let a = t.apart("alpha", &repo, &[&writes_lib(LIB_A)]).await;
    let first = t.run_task(&a, "First change").await;
    let second = t.run_task(&a, "Second change").await;
    std::fs::write(Path::new(&t.engine.list_worktrees().await.unwrap()[1].path).join("src/lib.rs"), LIB_B).unwrap();
    t.worktrees_until("the two meet", |l| l.iter().all(|w| !w.conflicts_with.is_empty())).await;

    let (code, out, _) = cli_async(&t, &["worktree", "list", "--json"]).await;
    assert_eq!(code, std::process::ExitCode::SUCCESS);
    let listed: Vec<serde_json::Value> = serde_json::from_str(&out).unwrap();
    assert_eq!(listed[0]["task"], first.id.to_string());
    assert_eq!(listed[0]["agent"], "alpha");
    assert_eq!(listed[0]["branch"], "switchboard/alpha/first-change");
    assert_eq!(listed[0]["base"], "main");
    assert_eq!(listed[0]["state"], "conflicting");
    assert_eq!(listed[0]["files_changed"], 1);
    assert_eq!(listed[0]["conflicts_with"], serde_json::json!([second.id.to_string()]));
    assert!(listed[0]["path"].as_str().unwrap().contains("worktrees"));

    let (code, out, _) = cli_async(&t, &["worktree", "diff", &first.id.to_string()]).await;
    assert_eq!(code, std::process::ExitCode::SUCCESS);
    assert!(out.starts_with("modified\tsrc/lib.rs\n"), "{out}");
    assert!(out.contains("+    11"), "{out}");

    let (code, _, _) = cli_async(&t, &["worktree", "merge", &first.id.to_string()]).await;
    assert_eq!(code, std::process::ExitCode::SUCCESS);
    let (code, out, err) = cli_async(&t, &["worktree", "merge", &second.id.to_string(), "--json"]).await;
    assert_eq!(code, std::process::ExitCode::from(switchboard_cli::EXIT_REFUSED));
    let refused: MergeOutcome = serde_json::from_str(&out).unwrap();
    assert_eq!(refused, MergeOutcome::Conflict { files: vec!["src/lib.rs".into()] });
    assert!(err.contains("src/lib.rs"), "{err}");

    let (code, _, err) = cli_async(&t, &["worktree", "discard", &second.id.to_string()]).await;
    assert_eq!(code, std::process::ExitCode::from(switchboard_cli::EXIT_REFUSED));
    assert!(err.contains("--force"), "{err}");
    let (code, out, _) = cli_async(&t, &["worktree", "discard", &second.id.to_string(), "--force"]).await;
    assert_eq!(code, std::process::ExitCode::SUCCESS);
    let patch = PathBuf::from(out.trim());
    assert!(patch.is_absolute() && patch.is_file(), "{out}");
    assert!(std::fs::read_to_string(&patch).unwrap().contains("+    12"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_loop_of_an_agent_that_works_apart_runs_every_iteration_in_one_worktree_of_its_own() {
    use switchboard_core::loops::LoopSettings;
    let t = TestEngine::start().await;
    let repo = repository(&t.data_dir);
    // Each run notes its step in a file of the project; the second says the work is done.
    let script = "printf 'agent> '; read -r line; n=$(( $(cat runs 2>/dev/null || echo 0) + 1 )); echo $n > runs; \
                  echo \"step $n\" >> work.txt; mkdir -p .switchboard; \
                  if [ $n = 2 ]; then echo LOOP_COMPLETE >> .switchboard/progress.md; fi; echo \"did step $n\"";
    let spec = ProfileSpec {
        ready_pattern: Some("agent> $".into()),
        ready_quiet_ms: 50,
        isolation: Isolation::Worktree,
        cwd: repo.display().to_string(),
        ..t.spec("looper", "sh", &["-c", script])
    };
    let profile = t.engine.create_profile(spec).await.unwrap();
    let started = t.engine.start_loop(profile.id.clone(), LoopSettings::new("Write the work file")).await.unwrap();
    let ended = t.loop_ends(&started.id).await;
    assert_eq!(ended.iterations_run(), 2, "{ended:#?}");
    let listed = t.engine.list_worktrees().await.unwrap();
    assert_eq!(listed.len(), 1, "one worktree for the whole loop: {listed:#?}");
    let worktree = &listed[0];
    assert_eq!(
        (worktree.task.as_str(), worktree.loop_id.as_ref()),
        (started.id.to_string().as_str(), Some(&started.id))
    );
    assert_eq!(worktree.title, "Write the work file");
    let folder = Path::new(&worktree.path);
    assert_eq!(std::fs::read_to_string(folder.join("work.txt")).unwrap(), "step 1\nstep 2\n");
    assert!(folder.join(".switchboard/anchor.md").is_file(), "the loop's files are in its worktree");
    assert!(!repo.join("work.txt").exists() && !repo.join(".switchboard").exists(), "the user's checkout is untouched");
    let diff = t.engine.worktree_diff(worktree.task.clone()).await.unwrap();
    let paths: Vec<&str> = diff.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths, ["runs", "work.txt"], "the app's own loop files are not changes");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_can_name_the_branch_its_worktree_is_made_from_and_its_merge_lands_there() {
    let t = TestEngine::start().await;
    let repo = repository(&t.data_dir);
    git(&repo, &["branch", "release"]);
    let a = t.apart("alpha", &repo, &[&writes_lib(LIB_A)]).await;
    let spec = TaskSpec { base: Some("release".into()), ..TaskSpec::new(a.id.clone(), "Fix it on the release branch") };
    let submitted = t.engine.submit_task(spec).await.unwrap();
    let done = t.task_until(&submitted.task.id, "to finish", |t| t.state.is_finished()).await;
    assert_eq!(done.state, TaskState::Completed);
    let listed = t.engine.list_worktrees().await.unwrap();
    assert_eq!(listed[0].base, "release");
    let merged = t.engine.merge_worktree(done.id.to_string()).await.unwrap();
    assert!(matches!(merged, MergeOutcome::Merged { ref base, .. } if base == "release"), "{merged:?}");
    assert_eq!(git(&repo, &["show", "release:src/lib.rs"]), LIB_A.trim_end());
    assert_eq!(
        std::fs::read_to_string(repo.join("src/lib.rs")).unwrap(),
        "pub fn one() -> u32 {\n    1\n}\n",
        "main as it was"
    );

    // A branch that is not there fails the task, saying so; an agent in its folder takes no base.
    let spec = TaskSpec { base: Some("no-such-branch".into()), ..TaskSpec::new(a.id.clone(), "Elsewhere") };
    let submitted = t.engine.submit_task(spec).await.unwrap();
    let failed = t.task_until(&submitted.task.id, "to finish", |t| t.state.is_finished()).await;
    assert_eq!(failed.state, TaskState::Failed);
    assert!(
        failed.reason.as_deref().unwrap_or_default().contains("no branch “no-such-branch”"),
        "{:?}",
        failed.reason.as_deref()
    );
    let folder = t.profile("folder", "sh", &[]).await;
    let spec = TaskSpec { base: Some("release".into()), ..TaskSpec::new(folder.id.clone(), "Anything") };
    let refused = t.engine.submit_task(spec).await.unwrap_err();
    assert!(refused.to_string().contains("works in its own folder"), "{refused}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worktree_whose_agent_is_at_work_is_not_merged_rebased_or_discarded_from_under_it() {
    let t = TestEngine::start().await;
    let repo = repository(&t.data_dir);
    let a = t
        .apart("alpha", &repo, &["[{ write_file = { path = \"x.txt\", content = \"x\" } }, { sleep_ms = 600000 }]"])
        .await;
    let submitted = t.engine.submit_task(TaskSpec::new(a.id.clone(), "Work slowly")).await.unwrap();
    let id = submitted.task.id.clone();
    t.task_until(&id, "to be typed", |task| task.typed_at.is_some()).await;
    let listed = t.worktrees_until("its worktree to be listed at work", |l| l.len() == 1).await;
    assert_eq!(listed[0].state, WorktreeState::Working);
    assert_eq!(listed[0].task_at_work.as_ref(), Some(&id));
    let key = id.to_string();
    for refused in [
        t.engine.merge_worktree(key.clone()).await.map(|_| ()),
        t.engine.rebase_worktree(key.clone()).await.map(|_| ()),
        t.engine.discard_worktree(key.clone(), true).await.map(|_| ()),
    ] {
        let error = refused.unwrap_err();
        assert!(error.to_string().contains("still at work in it"), "{error}");
    }
    assert!(Path::new(&listed[0].path).is_dir(), "nothing was taken from under the agent");
    // Cancelled, its work is the user's to review.
    t.engine.cancel_task(id.clone()).await.unwrap();
    let listed = t.worktrees_until("no task at work there", |l| l[0].task_at_work.is_none()).await;
    assert_ne!(listed[0].state, WorktreeState::Working);
}

// ---- a hostile agent's moves on its worktree -------------------------------------------------

/// A program that appends its own name to `ran` in `markers` when run: what
/// a planted fsmonitor, hook, filter or textconv would be.
fn marker_program(markers: &Path, name: &str) -> PathBuf {
    std::fs::create_dir_all(markers).unwrap();
    let program = markers.join(name);
    std::fs::write(&program, format!("#!/bin/sh\necho {name} >> '{}'\ncat\n", markers.join("ran").display())).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).unwrap();
    program
}

/// What the planted programs ran, if anything.
fn ran(markers: &Path) -> String {
    std::fs::read_to_string(markers.join("ran")).unwrap_or_default()
}

/// A git directory of the agent's own, a copy of the repository's with a
/// file-system monitor, hooks, a filter and a textconv configured, each a
/// program that leaves a mark; the worktree's `.git` file pointed at it and
/// a `.gitattributes` that names the filter and the textconv.
fn plant_git_dir(repo: &Path, worktree: &Path, markers: &Path) {
    let evil = markers.join("evil.git");
    let out = Command::new("git")
        .args(["clone", "--quiet", "--bare", repo.to_str().unwrap(), evil.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let hooks = markers.join("hooks");
    std::fs::create_dir_all(&hooks).unwrap();
    for hook in
        ["pre-commit", "post-commit", "post-checkout", "post-merge", "reference-transaction", "post-index-change"]
    {
        std::fs::copy(marker_program(markers, hook), hooks.join(hook)).unwrap();
    }
    let set = |key: &str, value: &str| git(&evil, &["config", key, value]);
    set("core.bare", "false");
    set("core.fsmonitor", marker_program(markers, "fsmonitor").to_str().unwrap());
    set("core.hooksPath", hooks.to_str().unwrap());
    set("filter.evil.clean", marker_program(markers, "clean").to_str().unwrap());
    set("filter.evil.smudge", marker_program(markers, "smudge").to_str().unwrap());
    set("diff.evil.textconv", marker_program(markers, "textconv").to_str().unwrap());
    set("diff.external", marker_program(markers, "external-diff").to_str().unwrap());
    std::fs::write(worktree.join(".gitattributes"), "* filter=evil diff=evil\n").unwrap();
    std::fs::write(worktree.join(".git"), format!("gitdir: {}\n", evil.display())).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_git_directory_an_agent_planted_is_never_run_by_the_radar_diff_commit_merge_or_discard() {
    let t = TestEngine::start().await;
    let repo = repository(&t.data_dir);
    let main_before = git(&repo, &["rev-parse", "main"]);
    let a = t.apart("alpha", &repo, &[&writes_lib(LIB_A)]).await;
    let task = t.run_task(&a, "Plant a git directory").await;
    let listed = t.worktrees_until("its work is read", |l| of(l, &task.id).files_changed == 1).await;
    let path = PathBuf::from(&of(&listed, &task.id).path);
    let markers = t.data_dir.join("markers");
    plant_git_dir(&repo, &path, &markers);
    // The radar sees the `.git` file change, and says so in words.
    let listed =
        t.worktrees_until("it reads as tampered with", |l| of(l, &task.id).state == WorktreeState::Tampered).await;
    assert_eq!(of(&listed, &task.id).files_changed, 0);
    for (what, error) in [
        ("diff", t.engine.worktree_diff(task.id.to_string()).await.unwrap_err()),
        ("commit", t.engine.commit_worktree(task.id.to_string()).await.unwrap_err()),
        ("merge", t.engine.merge_worktree(task.id.to_string()).await.unwrap_err()),
        ("rebase", t.engine.rebase_worktree(task.id.to_string()).await.map(|_| ()).unwrap_err()),
    ] {
        assert!(error.to_string().contains("tampered with"), "{what}: {error}");
    }
    assert_eq!(git(&repo, &["rev-parse", "main"]), main_before, "nothing landed");
    // Discard keeps its files, as they are, beside the patches.
    let DiscardOutcome::Discarded { patch: Some(kept) } =
        t.engine.discard_worktree(task.id.to_string(), false).await.unwrap()
    else {
        panic!("discarded, its files kept")
    };
    assert_eq!(std::fs::read_to_string(Path::new(&kept).join("src/lib.rs")).unwrap(), LIB_A);
    assert!(Path::new(&kept).starts_with(t.data_dir.join("patches")), "{kept}");
    // Its `.git` is kept under another name: no git run in the kept folder goes through it.
    assert!(std::fs::symlink_metadata(Path::new(&kept).join(".git")).is_err(), "the planted .git was kept as .git");
    assert!(Path::new(&kept).join(switchboard_core::worktree::KEPT_GIT_FILE).exists());
    assert!(!path.exists());
    assert!(!git(&repo, &["worktree", "list", "--porcelain"]).contains(path.to_str().unwrap()));
    let listed = t.engine.list_worktrees().await.unwrap();
    assert_eq!(of(&listed, &task.id).state, WorktreeState::Discarded);
    assert_eq!(ran(&markers), "", "nothing the agent planted ran");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_repository_an_agent_nests_in_its_worktree_runs_nothing_through_the_radar_diff_commit_or_merge() {
    let t = TestEngine::start().await;
    let repo = repository(&t.data_dir);
    let a = t.apart("alpha", &repo, &[&writes_lib(LIB_A)]).await;
    let task = t.run_task(&a, "Nest a repository").await;
    let listed = t.worktrees_until("its work is read", |l| of(l, &task.id).files_changed == 1).await;
    let path = PathBuf::from(&of(&listed, &task.id).path);
    let markers = t.data_dir.join("markers");
    let nested = path.join("vendor");
    std::fs::create_dir_all(&nested).unwrap();
    git(&nested, &["init", "--quiet"]);
    git(&nested, &["config", "user.email", "agent@example.com"]);
    git(&nested, &["config", "user.name", "Agent"]);
    std::fs::write(nested.join("lib.txt"), "vendored\n").unwrap();
    git(&nested, &["add", "lib.txt"]);
    git(&nested, &["commit", "--quiet", "-m", "vendored"]);
    git(&nested, &["config", "core.fsmonitor", marker_program(&markers, "fsmonitor").to_str().unwrap()]);
    git(&nested, &["config", "core.hooksPath", markers.to_str().unwrap()]);
    marker_program(&markers, "post-index-change");
    std::fs::write(nested.join("lib.txt"), "vendored, changed\n").unwrap();
    t.worktrees_until("the nested repository is read", |l| of(l, &task.id).files_changed == 2).await;
    t.engine.worktree_diff(task.id.to_string()).await.unwrap();
    assert!(t.engine.commit_worktree(task.id.to_string()).await.unwrap().committed);
    t.engine.worktree_diff(task.id.to_string()).await.unwrap();
    let merged = t.engine.merge_worktree(task.id.to_string()).await.unwrap();
    assert!(matches!(merged, MergeOutcome::Merged { .. }), "{merged:?}");
    assert_eq!(ran(&markers), "", "nothing the agent planted ran");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_git_file_pointed_at_the_users_repository_leaves_their_index_checkout_and_main_alone() {
    let t = TestEngine::start().await;
    let repo = repository(&t.data_dir);
    let a = t.apart("alpha", &repo, &[&writes_lib(LIB_A)]).await;
    let task = t.run_task(&a, "Point at the user's repository").await;
    let listed = t.worktrees_until("its work is read", |l| of(l, &task.id).files_changed == 1).await;
    let path = PathBuf::from(&of(&listed, &task.id).path);
    // The user has a change staged and another not.
    std::fs::write(repo.join("staged.txt"), "the user's staged file\n").unwrap();
    git(&repo, &["add", "staged.txt"]);
    std::fs::write(repo.join("README.md"), "# Project, being edited\n").unwrap();
    let (main_before, status_before) = (git(&repo, &["rev-parse", "main"]), git(&repo, &["status", "--porcelain"]));
    std::fs::write(path.join(".git"), format!("gitdir: {}\n", repo.join(".git").display())).unwrap();
    t.worktrees_until("it reads as tampered with", |l| of(l, &task.id).state == WorktreeState::Tampered).await;
    let error = t.engine.merge_worktree(task.id.to_string()).await.unwrap_err();
    assert!(error.to_string().contains("tampered with"), "merge says what happened: {error}");
    assert!(t.engine.commit_worktree(task.id.to_string()).await.is_err());
    assert_eq!(git(&repo, &["rev-parse", "main"]), main_before);
    assert_eq!(git(&repo, &["status", "--porcelain"]), status_before);
    assert_eq!(git(&repo, &["diff", "--cached", "--name-only"]), "staged.txt", "the user's staged change is kept");
    assert_eq!(std::fs::read_to_string(repo.join("README.md")).unwrap(), "# Project, being edited\n");
    assert_eq!(std::fs::read_to_string(repo.join("src/lib.rs")).unwrap(), "pub fn one() -> u32 {\n    1\n}\n");
    // Discarded, its files kept; the user's repository is as it was.
    let discarded = t.engine.discard_worktree(task.id.to_string(), true).await.unwrap();
    assert!(matches!(discarded, DiscardOutcome::Discarded { patch: Some(_) }), "{discarded:?}");
    assert!(!path.exists());
    assert_eq!(git(&repo, &["rev-parse", "main"]), main_before);
    assert_eq!(git(&repo, &["status", "--porcelain"]), status_before);
    assert_eq!(git(&repo, &["diff", "--cached", "--name-only"]), "staged.txt");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worktree_whose_branch_or_git_file_was_deleted_says_so_and_is_discarded_keeping_its_files() {
    let t = TestEngine::start().await;
    let repo = repository(&t.data_dir);
    let a = t.apart("alpha", &repo, &[&writes_lib(LIB_A)]).await;
    let branchless = t.run_task(&a, "Lose my branch").await;
    let gitless = t.run_task(&a, "Lose my git file").await;
    let listed = t
        .worktrees_until("both are read", |l| {
            of(l, &branchless.id).files_changed == 1 && of(l, &gitless.id).files_changed == 1
        })
        .await;
    let (branch, path) = (of(&listed, &branchless.id).branch.clone(), PathBuf::from(&of(&listed, &branchless.id).path));
    let gitless_path = PathBuf::from(&of(&listed, &gitless.id).path);
    // What an agent can do from its folder: its branch deleted under it, its `.git` file removed.
    // The branch goes from the repository alone: no file of its folder changes, and the radar's
    // look at each worktree's soundness finds it.
    git(&repo, &["update-ref", "-d", &format!("refs/heads/{branch}")]);
    std::fs::remove_file(gitless_path.join(".git")).unwrap();
    let listed = t
        .worktrees_within("both say what is wrong", Duration::from_secs(60), |l| {
            of(l, &branchless.id).state == WorktreeState::BranchGone
                && of(l, &gitless.id).state == WorktreeState::Tampered
        })
        .await;
    assert_eq!(of(&listed, &branchless.id).files_changed, 0);
    for task in [&branchless, &gitless] {
        assert!(t.engine.worktree_diff(task.id.to_string()).await.is_err());
        assert!(t.engine.merge_worktree(task.id.to_string()).await.is_err());
    }
    let error = t.engine.merge_worktree(branchless.id.to_string()).await.unwrap_err();
    assert!(error.to_string().contains("its branch was deleted"), "{error}");
    // Discard works, without --force as with it, and keeps the files.
    for (task, folder, content, force) in [(&branchless, &path, LIB_A, false), (&gitless, &gitless_path, LIB_A, true)] {
        let DiscardOutcome::Discarded { patch: Some(kept) } =
            t.engine.discard_worktree(task.id.to_string(), force).await.unwrap()
        else {
            panic!("discarded with its files kept")
        };
        assert_eq!(std::fs::read_to_string(Path::new(&kept).join("src/lib.rs")).unwrap(), content);
        assert!(!folder.exists());
    }
    let listed = t.engine.list_worktrees().await.unwrap();
    assert!(listed.iter().all(|w| w.state == WorktreeState::Discarded), "{listed:#?}");
    assert_eq!(git(&repo, &["worktree", "list", "--porcelain"]).matches("worktree ").count(), 1, "git forgot both");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_ignored_env_file_is_never_committed_by_a_merge() {
    let t = TestEngine::start().await;
    let repo = repository(&t.data_dir);
    // The user's own excludes file, named in their configuration.
    let excludes = t.data_dir.join("excludes");
    std::fs::write(&excludes, ".env\n").unwrap();
    git(&repo, &["config", "core.excludesFile", excludes.to_str().unwrap()]);
    let steps = format!(
        "[{{ write_file = {{ path = \".env\", content = \"TOKEN=secret\\n\" }} }}, \
         {{ write_file = {{ path = \"src/lib.rs\", content = {LIB_A:?} }} }}, {{ summary = \"completed\" }}]"
    );
    let a = t.apart("alpha", &repo, &[&steps]).await;
    let task = t.run_task(&a, "Use a secret").await;
    t.worktrees_until("its work is read", |l| of(l, &task.id).files_changed == 1).await;
    let merged = t.engine.merge_worktree(task.id.to_string()).await.unwrap();
    assert!(matches!(merged, MergeOutcome::Merged { .. }), "{merged:?}");
    assert_eq!(std::fs::read_to_string(repo.join("src/lib.rs")).unwrap(), LIB_A);
    let files = git(&repo, &["ls-tree", "-r", "--name-only", "main"]);
    assert!(!files.contains(".env"), "{files}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_repository_with_a_filter_driver_is_refused_for_isolation_in_words() {
    let t = TestEngine::start().await;
    let repo = repository(&t.data_dir);
    git(&repo, &["config", "filter.crypt.clean", "cat"]);
    git(&repo, &["config", "filter.lfs.clean", "git-lfs clean -- %f"]);
    let a = t.apart("alpha", &repo, &[&writes_lib(LIB_A)]).await;
    let task = t.run_task(&a, "Work apart").await;
    assert_eq!(task.state, TaskState::Failed);
    let reason = task.reason.as_deref().unwrap_or_default();
    assert!(reason.contains("filter “crypt”") && reason.contains("worktrees of their own"), "{reason}");
    assert!(t.engine.list_worktrees().await.unwrap().is_empty());
    let found = t.engine.folder_repository(repo.display().to_string()).await.unwrap();
    assert!(
        matches!(&found, switchboard_core::FolderRepository::NotARepository { why } if why.contains("filter “crypt”")),
        "{found:?}"
    );

    // A filter defined once a worktree is made: git is no longer run there, and it says so.
    git(&repo, &["config", "--unset", "filter.crypt.clean"]);
    let b = t.apart("beta", &repo, &[&writes_lib(LIB_A)]).await;
    let task = t.run_task(&b, "Work apart now").await;
    assert_eq!(task.state, TaskState::Completed);
    let listed = t.worktrees_until("its work is read", |l| of(l, &task.id).files_changed == 1).await;
    let path = PathBuf::from(&of(&listed, &task.id).path);
    git(&repo, &["config", "filter.crypt.clean", "cat"]);
    std::fs::write(path.join("more.txt"), "wake the radar\n").unwrap();
    t.worktrees_until("it reads as refused", |l| of(l, &task.id).state == WorktreeState::Refused).await;
    let error = t.engine.merge_worktree(task.id.to_string()).await.unwrap_err();
    assert!(error.to_string().contains("filter “crypt”"), "{error}");
    let DiscardOutcome::Discarded { patch: Some(kept) } =
        t.engine.discard_worktree(task.id.to_string(), false).await.unwrap()
    else {
        panic!("discarded, its files kept")
    };
    assert_eq!(std::fs::read_to_string(Path::new(&kept).join("src/lib.rs")).unwrap(), LIB_A);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_radar_pairs_only_worktrees_of_the_same_repository() {
    let t = TestEngine::start().await;
    let (one, two) = (t.data_dir.join("one"), t.data_dir.join("two"));
    let (repo_one, repo_two) = (repository(&one), repository(&two));
    let a = t.apart("alpha", &repo_one, &[&writes_lib(LIB_A)]).await;
    let b = t.apart("beta", &repo_two, &[&writes_lib(LIB_B)]).await;
    let c = t.apart("gamma", &repo_one, &[&writes_lib(LIB_B)]).await;
    let (ta, tb) = (t.run_task(&a, "Change one").await, t.run_task(&b, "Change two").await);
    let listed = t.worktrees_until("both are read", |l| l.len() == 2 && l.iter().all(|w| w.files_changed == 1)).await;
    assert!(
        listed.iter().all(|w| w.conflicts_with.is_empty() && w.state == WorktreeState::ReadyToMerge),
        "{listed:#?}"
    );
    // A second worktree of the first repository does meet the first.
    let tc = t.run_task(&c, "Change one too").await;
    let listed =
        t.worktrees_until("the first two meet", |l| l.len() == 3 && !of(l, &tc.id).conflicts_with.is_empty()).await;
    assert_eq!(of(&listed, &tc.id).conflicts_with, vec![ta.id.to_string()]);
    assert!(of(&listed, &tb.id).conflicts_with.is_empty(), "{listed:#?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_merge_waits_in_words_while_the_user_rebases_its_base() {
    let t = TestEngine::start().await;
    let repo = repository(&t.data_dir);
    let a = t.apart("alpha", &repo, &[&writes_lib(LIB_A)]).await;
    let task = t.run_task(&a, "Change one").await;
    t.worktrees_until("its work is read", |l| of(l, &task.id).files_changed == 1).await;
    // The user rebases main onto a branch of theirs and stops on a conflict.
    git(&repo, &["switch", "--quiet", "-c", "theirs"]);
    std::fs::write(repo.join("README.md"), "# Theirs\n").unwrap();
    git(&repo, &["commit", "--quiet", "-am", "theirs"]);
    git(&repo, &["switch", "--quiet", "main"]);
    std::fs::write(repo.join("README.md"), "# Mine\n").unwrap();
    git(&repo, &["commit", "--quiet", "-am", "mine"]);
    let main_before = git(&repo, &["rev-parse", "main"]);
    let stopped = Command::new("git").arg("-C").arg(&repo).args(["rebase", "theirs"]).output().unwrap();
    assert!(!stopped.status.success(), "the rebase stops on its conflict");
    let waited = t.engine.merge_worktree(task.id.to_string()).await.unwrap();
    assert!(matches!(&waited, MergeOutcome::InTheWay { why } if why.contains("main is being rebased")), "{waited:?}");
    assert_eq!(git(&repo, &["rev-parse", "main"]), main_before, "main did not move under the rebase");
    git(&repo, &["rebase", "--abort"]);
    let merged = t.engine.merge_worktree(task.id.to_string()).await.unwrap();
    assert!(matches!(merged, MergeOutcome::Merged { .. }), "{merged:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_command_line_lists_each_odd_file_name_on_one_line_and_json_keeps_it_whole() {
    use std::os::unix::ffi::OsStrExt;
    let t = TestEngine::start().await;
    let repo = repository(&t.data_dir);
    let a = t.apart("alpha", &repo, &[&writes_lib(LIB_A)]).await;
    let task = t.run_task(&a, "Name files oddly").await;
    let listed = t.worktrees_until("its work is read", |l| of(l, &task.id).files_changed == 1).await;
    let path = PathBuf::from(&of(&listed, &task.id).path);
    // A name that forges a list line, one that is not UTF-8, one that reads backwards.
    std::fs::write(path.join("notes.txt\nadded\tforged.txt"), "forged\n").unwrap();
    std::fs::write(path.join(std::ffi::OsStr::from_bytes(b"bad\xffname.txt")), "latin-1\n").unwrap();
    std::fs::write(path.join("invoice\u{202e}txt.exe"), "reversed\n").unwrap();
    t.worktrees_until("all four are read", |l| of(l, &task.id).files_changed == 4).await;

    let (code, out, err) = cli_async(&t, &["worktree", "diff", &task.id.to_string()]).await;
    assert_eq!(code, std::process::ExitCode::SUCCESS, "{err}");
    let listing: Vec<&str> = out.lines().take_while(|l| !l.is_empty()).collect();
    assert_eq!(
        listing,
        [
            // Not UTF-8: the guarded reader takes no such name, so its content is not shown.
            r#"added	"bad\377name.txt" (binary)"#,
            r#"added	"invoice\342\200\256txt.exe""#,
            r#"added	"notes.txt\nadded\tforged.txt""#,
            "modified\tsrc/lib.rs",
        ],
        "{out}"
    );
    assert!(!out.contains('\u{202e}') && !out.contains('\u{fffd}'), "{out}");

    // --json: the same names, quoted the one stated way, which gives back their bytes.
    let (_, out, _) = cli_async(&t, &["worktree", "diff", &task.id.to_string(), "--json"]).await;
    let diff: serde_json::Value = serde_json::from_str(&out).unwrap();
    let names: Vec<&str> = diff["files"].as_array().unwrap().iter().map(|f| f["path"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [r#""bad\377name.txt""#, r#""invoice\342\200\256txt.exe""#, r#""notes.txt\nadded\tforged.txt""#, "src/lib.rs"]
    );
    let forged =
        diff["files"].as_array().unwrap().iter().find(|f| f["path"].as_str().unwrap().contains("forged")).unwrap();
    assert_eq!(forged["content"]["after"], "forged\n", "the file itself is still read");
}

/// The sessions of `profile` running now, as the engine lists them.
async fn live_sessions(t: &TestEngine, profile: &Profile) -> Vec<switchboard_core::SessionInfo> {
    let sessions = t.engine.list_sessions().await.unwrap();
    sessions
        .into_iter()
        .filter(|s| s.profile_id == profile.id && matches!(s.state, switchboard_core::SessionState::Running { .. }))
        .collect()
}

/// The most sessions of `profile` the events ever showed running at once.
fn most_live_at_once(events: &[switchboard_core::EngineEvent], profile: &Profile) -> usize {
    let mut live = std::collections::BTreeSet::new();
    let mut most = 0;
    for event in events {
        if let switchboard_core::EngineEvent::SessionChanged { session } = event
            && session.profile_id == profile.id
        {
            if matches!(session.state, switchboard_core::SessionState::Running { .. }) {
                live.insert(session.id.clone());
            } else {
                live.remove(&session.id);
            }
            most = most.max(live.len());
        }
    }
    most
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_keeps_one_live_session_across_worktree_tasks_and_a_comment_resumes_the_first_conversation() {
    let t = TestEngine::start().await;
    let repo = repository(&t.data_dir);
    // Stands in for Claude Code: records the first two arguments it is
    // started with (the conversation's), then works as the demo agent does
    // (a file, its summary).
    let argv = t.data_dir.join("argv.log");
    let scenario = t.data_dir.join("claude.toml");
    std::fs::write(
        &scenario,
        "prompt = \"agent> \"\n[[tasks]]\nsteps = [{ write_file = { path = \"notes.txt\", content = \"done\\n\" } }, \
         { summary = \"completed\" }]\n",
    )
    .unwrap();
    let fake = t.data_dir.join("fake-claude");
    std::fs::write(
        &fake,
        format!(
            "#!/bin/sh\nprintf '%s\\n' \"$1 $2\" >> '{}'\nexec '{DEMO_AGENT}' --speed fast --scenario '{}'\n",
            argv.display(),
            scenario.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&fake, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let spec = ProfileSpec {
        kind: switchboard_core::AgentKind::ClaudeCode,
        ready_pattern: Some("agent> $".into()),
        ready_quiet_ms: 50,
        isolation: Isolation::Worktree,
        cwd: repo.display().to_string(),
        ..t.spec("claude", fake.to_str().unwrap(), &[])
    };
    let profile = t.engine.create_profile(spec).await.unwrap();

    // The first task: its session ends a short grace after it.
    let first = t.run_task(&profile, "Write the first notes").await;
    assert_eq!(first.state, TaskState::Completed);
    wait_until_async(&t, &profile, "the first task's session to end after its grace", |live| live.is_empty()).await;
    let stored = t.engine.list_sessions().await.unwrap();
    let first_session = stored.iter().find(|s| Some(&s.id) == first.session_id.as_ref()).unwrap().clone();
    // The engine names the agent's current session (the window shows it): that one while it
    // ran, none once it ended.
    let reported = |events: &[switchboard_core::EngineEvent]| -> Vec<Option<switchboard_core::SessionId>> {
        events
            .iter()
            .filter_map(|e| match e {
                switchboard_core::EngineEvent::QueueChanged { queue } if queue.profile_id == profile.id => {
                    Some(queue.current_session.clone())
                }
                _ => None,
            })
            .collect()
    };
    t.events
        .wait_for("the queue to name no current session", |events| {
            (reported(events).last() == Some(&None)).then_some(())
        })
        .await;
    assert!(reported(&t.events_now().await).contains(&Some(first_session.id.clone())));
    let conversation = first_session.agent_session_id.clone().expect("the app named the conversation");

    // The second: discarded at once, while its session is in its grace;
    // the discard ends it first, so nothing is left in the removed folder.
    let second = t.run_task(&profile, "Write the second notes").await;
    assert_eq!(second.state, TaskState::Completed);
    let discarded = t.engine.discard_worktree(second.id.to_string(), true).await.unwrap();
    assert!(matches!(discarded, DiscardOutcome::Discarded { .. }), "{discarded:?}");
    let live = live_sessions(&t, &profile).await;
    assert!(live.is_empty(), "the discard ended the session in its folder first: {live:#?}");

    // The third.
    let third = t.run_task(&profile, "Write the third notes").await;
    assert_eq!(third.state, TaskState::Completed);
    wait_until_async(&t, &profile, "the third task's session to end after its grace", |live| live.is_empty()).await;
    assert_eq!(most_live_at_once(&t.events_now().await, &profile), 1, "one live session of the agent at a time");

    // A comment on the first worktree reaches a session that continues its conversation.
    let comments = vec![ReviewComment { path: "notes.txt".into(), line: 1, text: "Say more than done".into() }];
    let review = t.engine.review_worktree(first.id.to_string(), comments).await.unwrap();
    let review = t.task_until(&review.task.id, "to finish", |t| t.state.is_finished()).await;
    assert_eq!(review.state, TaskState::Completed);
    let resumed = review.session_id.as_ref().expect("it ran in a session");
    assert_ne!(Some(resumed), first.session_id.as_ref(), "a new session, the first having ended");
    let stored = t.engine.list_sessions().await.unwrap();
    let resumed = stored.iter().find(|s| &s.id == resumed).unwrap();
    assert_eq!(resumed.agent_session_id.as_deref(), Some(conversation.as_str()));
    assert!(reported(&t.events_now().await).contains(&Some(resumed.id.clone())), "named current while it worked");
    assert_eq!(resumed.workspace, first_session.workspace, "in the first task's worktree");
    let started = std::fs::read_to_string(&argv).unwrap();
    let lines: Vec<&str> = started.lines().collect();
    assert_eq!(lines.len(), 4, "{started}");
    assert!(lines[0].contains(&format!("--session-id {conversation}")), "{started}");
    assert!(lines[3].contains(&format!("--resume {conversation}")), "{started}");
    assert!(!lines[3].contains("--session-id"), "{started}");
}

/// Waits until the live sessions of `profile` satisfy `condition`.
async fn wait_until_async(
    t: &TestEngine,
    profile: &Profile,
    what: &str,
    condition: impl Fn(&[switchboard_core::SessionInfo]) -> bool,
) {
    let deadline = tokio::time::Instant::now() + DEADLINE;
    loop {
        let live = live_sessions(t, profile).await;
        if condition(&live) {
            return;
        }
        assert!(tokio::time::Instant::now() < deadline, "timed out waiting for {what}: {live:#?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

const LIB_BOTH: &str = "pub fn one() -> u32 {\n    11 + 12\n}\n";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn worktree_states_say_what_happened_and_a_conflict_with_the_base_is_resolved_by_its_agent_then_merged() {
    let t = TestEngine::start().await;
    let repo = repository(&t.data_dir);
    // Each task's steps are chosen by its words (the first entry whose words
    // it holds): a fresh session counts its tasks from one again.
    let resolve = format!(
        "[{{ run = \"git commit -qam 'Make one return twelve'\" }}, {{ run = \"git merge main\" }}, \
         {{ write_file = {{ path = \"src/lib.rs\", content = {LIB_BOTH:?} }} }}, \
         {{ run = \"git add src/lib.rs && git commit -q --no-edit\" }}, {{ summary = \"completed\" }}]"
    );
    let scenario = format!(
        "prompt = \"agent> \"\n\
         [[tasks]]\nwhen = \"resolve the conflicts\"\nsteps = {resolve}\n\
         [[tasks]]\nwhen = \"eleven\"\nsteps = {}\n\
         [[tasks]]\nwhen = \"twelve\"\nsteps = {}\n\
         [[tasks]]\nwhen = \"Give up\"\nsteps = [{{ write_file = {{ path = \"half.txt\", content = \"half\\n\" }} }}, \
         {{ summary = \"failed\" }}]\n",
        writes_lib(LIB_A),
        writes_lib(LIB_B)
    );
    let path = t.data_dir.join("alpha.toml");
    std::fs::write(&path, scenario).unwrap();
    let spec = ProfileSpec {
        ready_pattern: Some("agent> $".into()),
        ready_quiet_ms: 50,
        isolation: Isolation::Worktree,
        cwd: repo.display().to_string(),
        ..t.spec("alpha", DEMO_AGENT, &["--speed", "fast", "--scenario", path.to_str().unwrap()])
    };
    let a = t.engine.create_profile(spec).await.unwrap();

    // A failed task's worktree is not ready to merge: it says its task failed.
    let failed = t.run_task(&a, "Give up halfway").await;
    assert_eq!(failed.state, TaskState::Failed);
    let listed =
        t.worktrees_until("the failed task's worktree is read", |l| of(l, &failed.id).files_changed == 1).await;
    let info = of(&listed, &failed.id);
    assert_eq!(info.state, WorktreeState::TaskFailed, "{info:#?}");
    assert!(info.state_text.starts_with("its task failed"), "{}", info.state_text);
    // Nothing to resolve there.
    let error = t.engine.resolve_worktree(failed.id.to_string()).await.unwrap_err();
    assert!(error.to_string().contains("nothing to resolve"), "{error}");

    // Two worktrees on the same line: one merged, the other now conflicts with main.
    let eleven = t.run_task(&a, "Make one return eleven").await;
    let twelve = t.run_task(&a, "Make one return twelve").await;
    t.worktrees_until("the two meet on the radar", |l| {
        of(l, &eleven.id).state == WorktreeState::Conflicting && of(l, &twelve.id).state == WorktreeState::Conflicting
    })
    .await;
    assert!(matches!(t.engine.merge_worktree(eleven.id.to_string()).await.unwrap(), MergeOutcome::Merged { .. }));
    let listed = t
        .worktrees_until("the other reads conflicting with main", |l| {
            of(l, &twelve.id).state == WorktreeState::ConflictsWithBase
        })
        .await;
    let info = of(&listed, &twelve.id);
    assert_eq!(info.base_conflict, ["src/lib.rs"]);
    assert_eq!(info.state_text, "conflicts with main now in src/lib.rs");
    assert_eq!(info.behind, 1);
    // The command line says the same words.
    let (code, listed_out, _) = cli_async(&t, &["worktree", "list"]).await;
    assert_eq!(code, std::process::ExitCode::SUCCESS);
    assert!(listed_out.contains("conflicts with main now in src/lib.rs"), "{listed_out}");
    assert!(listed_out.contains("its task failed"), "{listed_out}");
    assert!(matches!(
        t.engine.merge_worktree(twelve.id.to_string()).await.unwrap(),
        MergeOutcome::Conflict { files } if files == ["src/lib.rs"]
    ));

    // Resolve with the agent, from the command line: a task in that worktree.
    let (code, said, err) = cli_async(&t, &["worktree", "resolve", &twelve.id.to_string(), "--json"]).await;
    assert_eq!(code, std::process::ExitCode::SUCCESS, "{err}");
    let submitted: switchboard_core::Submitted = serde_json::from_str(&said).unwrap();
    assert_eq!(submitted.task.spec.worktree.as_deref(), Some(twelve.id.to_string().as_str()));
    assert_eq!(submitted.task.spec.title(), "Resolve conflicts with main: Make one return twelve");
    let resolved = t.task_until(&submitted.task.id, "to finish", |t| t.state.is_finished()).await;
    assert_eq!(resolved.state, TaskState::Completed);
    // Its state is read again: it merges cleanly now, and does.
    let listed =
        t.worktrees_until("it reads ready to merge", |l| of(l, &twelve.id).state == WorktreeState::ReadyToMerge).await;
    assert_eq!(of(&listed, &twelve.id).state_text, "ready to merge");
    assert!(of(&listed, &twelve.id).base_conflict.is_empty());
    assert!(matches!(t.engine.merge_worktree(twelve.id.to_string()).await.unwrap(), MergeOutcome::Merged { .. }));
    assert_eq!(git(&repo, &["show", "main:src/lib.rs"]), LIB_BOTH.trim_end());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_automations_older_runs_worktrees_are_discarded_so_its_runs_do_not_pile_up() {
    let t = TestEngine::start().await;
    let repo = repository(&t.data_dir);
    let steps: Vec<String> = (0..4).map(|n| writes_lib(&format!("pub fn one() -> u32 {{\n    {n}\n}}\n"))).collect();
    let agent = t.apart("nightly", &repo, &steps.iter().map(String::as_str).collect::<Vec<_>>()).await;
    let nightly = switchboard_core::Trigger::Every { every: "daily 03:00".into() };
    let spec = TestEngine::automation(&agent.id, nightly, "Bump the dependencies");
    let automation = t.engine.create_automation(spec).await.unwrap();
    let mut tasks = Vec::new();
    for run in 0..4 {
        let shown = t.engine.run_automation_now(automation.id.clone()).await.unwrap();
        let switchboard_core::RunOutcome::Task { task_id, .. } = &shown.runs[run].outcome else {
            panic!("{:?}", shown.runs)
        };
        let done = t.task_until(task_id, "to finish", |task| task.state.is_finished()).await;
        assert_eq!(done.state, TaskState::Completed);
        tasks.push(task_id.clone());
    }
    // The fourth run made, the first run's worktree is discarded (its work kept as a patch); the
    // latest three stay for review.
    let listed = t
        .worktrees_until("the oldest run's worktree discarded", |listed| {
            listed.iter().any(|w| w.task == tasks[0].to_string() && w.state == WorktreeState::Discarded)
        })
        .await;
    for task in &tasks[1..] {
        assert_ne!(of(&listed, task).state, WorktreeState::Discarded, "a recent run's worktree is kept");
    }
    let patches = t.data_dir.join("patches");
    let kept = std::fs::read_dir(&patches).map(|entries| entries.count()).unwrap_or(0);
    assert_eq!(kept, 1, "the discarded run's work is kept as a patch in {}", patches.display());
}

/// A branch automation is not run by Switchboard's own merge moving its
/// branch: it sees the merge's commit as where the branch is, and a commit
/// made after it runs it with that commit alone passed on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_engines_own_merge_does_not_run_a_branch_automation_but_a_commit_after_it_does() {
    let t = TestEngine::start().await;
    let repo = repository(&t.data_dir);
    let coder = t.apart("coder", &repo, &[&writes_lib(LIB_A)]).await;
    let mut watcher = t.spec("watcher", "sh", &["-c", "stty -echo; exec cat"]);
    watcher.ready_quiet_ms = 50;
    let watcher = t.engine.create_profile(watcher).await.unwrap();
    let trigger = switchboard_core::Trigger::BranchMoved { repo: repo.display().to_string(), branch: "main".into() };
    let made =
        t.engine.create_automation(TestEngine::automation(&watcher.id, trigger, "Test what landed")).await.unwrap();
    assert_eq!(made.branch_at.as_deref(), Some(git(&repo, &["rev-parse", "main"]).as_str()));

    let done = t.run_task(&coder, "Make one return 11").await;
    assert_eq!(done.state, TaskState::Completed);
    assert!(matches!(t.engine.merge_worktree(done.id.to_string()).await.unwrap(), MergeOutcome::Merged { .. }));
    let merged = git(&repo, &["rev-parse", "main"]);
    let deadline = tokio::time::Instant::now() + DEADLINE;
    let seen = loop {
        let seen = t.engine.get_automation(made.id.clone()).await.unwrap();
        if seen.branch_at.as_deref() == Some(merged.as_str()) {
            break seen;
        }
        assert!(tokio::time::Instant::now() < deadline, "the merge was never seen: {seen:#?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert!(seen.runs.is_empty(), "the engine's own merge ran it: {:#?}", seen.runs);

    std::fs::write(repo.join("NOTES.md"), "by hand\n").unwrap();
    git(&repo, &["add", "NOTES.md"]);
    git(&repo, &["-c", "user.name=u", "-c", "user.email=u@e", "commit", "-q", "-m", "Notes by hand"]);
    let head = git(&repo, &["rev-parse", "main"]);
    let ran = loop {
        let ran = t.engine.get_automation(made.id.clone()).await.unwrap();
        if !ran.runs.is_empty() {
            break ran;
        }
        assert!(tokio::time::Instant::now() < deadline + DEADLINE, "the commit never ran it: {ran:#?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(ran.runs.len(), 1, "{:#?}", ran.runs);
    assert!(ran.runs[0].reason.starts_with(&format!("main moved from {}", &merged[..10])), "{}", ran.runs[0].reason);
    let switchboard_core::RunOutcome::Task { task_id, .. } = &ran.runs[0].outcome else { panic!("{:?}", ran.runs) };
    let context = t.engine.get_task(task_id.clone()).await.unwrap().spec.context.unwrap();
    assert!(context.contains(" Notes by hand\n") && context.contains(&head), "{context}");
    assert!(!context.contains("Make one return 11"), "the merged work is not passed on as new: {context}");
}
