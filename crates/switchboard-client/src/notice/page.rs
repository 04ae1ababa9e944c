//! The desktop's notices as a browser's page shows them: the same decisions
//! ([`Action`]s), said as [`PageNotice`]s (pure).

use switchboard_api::{NoticeTone, PageNotice};

use super::{Action, Lasting, NoticeKind, Slot};

/// The place a slot's notice has in a page.
pub fn place(slot: &Slot) -> String {
    match slot {
        Slot::Agent(agent) => format!("agent:{agent}"),
        Slot::Finished => "finished".into(),
        Slot::App => "app".into(),
    }
}

/// How a notice of `kind` looks in a page.
pub fn tone(kind: NoticeKind) -> NoticeTone {
    match kind {
        NoticeKind::NeedsAnswer | NoticeKind::Overlap => NoticeTone::Asks,
        NoticeKind::AgentQuiet | NoticeKind::LoopStalled | NoticeKind::UsageLimit => NoticeTone::Stalled,
        NoticeKind::TaskFailed | NoticeKind::Storage => NoticeTone::Failed,
        NoticeKind::TaskCompleted | NoticeKind::LoopEnded | NoticeKind::App => NoticeTone::Done,
    }
}

/// What a page shows for what the desktop's notifications do.
pub fn page_notice(action: &Action) -> PageNotice {
    match action {
        Action::Show { slot, notice, lasting, .. } => PageNotice::Show {
            place: place(slot),
            tone: tone(notice.kind),
            title: notice.title.clone(),
            body: notice.body.clone(),
            opens: notice.target.opens(),
            stays: *lasting == Lasting::UntilHandled,
        },
        Action::Close { slot } => PageNotice::Close { place: place(slot) },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notice::{Notice, NoticeTarget, Urgency};
    use switchboard_api::OpenTarget;
    use switchboard_api::protocol::{ProfileId, SignalId, TaskId};

    fn notice(kind: NoticeKind, target: NoticeTarget, title: &str) -> Notice {
        Notice {
            kind,
            target,
            agent: None,
            subject: None,
            title: title.into(),
            body: "builder: “Write the notes”".into(),
            action: "Open",
        }
    }

    #[test]
    fn a_page_shows_what_the_desktop_notifies_in_its_place_and_closes_what_is_handled() {
        let agent = ProfileId::new();
        let (signal, task) = (SignalId::new(), TaskId::new());
        let cases: Vec<(Action, PageNotice)> = vec![
            (
                Action::Show {
                    slot: Slot::Agent(agent.clone()),
                    notice: notice(NoticeKind::NeedsAnswer, NoticeTarget::Signal(signal.clone()), "builder asks"),
                    urgency: Urgency::Critical,
                    lasting: Lasting::UntilHandled,
                },
                PageNotice::Show {
                    place: format!("agent:{agent}"),
                    tone: NoticeTone::Asks,
                    title: "builder asks".into(),
                    body: "builder: “Write the notes”".into(),
                    opens: Some(OpenTarget::Signal(signal)),
                    stays: true,
                },
            ),
            (
                Action::Show {
                    slot: Slot::Finished,
                    notice: notice(NoticeKind::TaskFailed, NoticeTarget::Task(task.clone()), "Task failed"),
                    urgency: Urgency::Normal,
                    lasting: Lasting::Transient(12_000),
                },
                PageNotice::Show {
                    place: "finished".into(),
                    tone: NoticeTone::Failed,
                    title: "Task failed".into(),
                    body: "builder: “Write the notes”".into(),
                    opens: Some(OpenTarget::Task(task)),
                    stays: false,
                },
            ),
            (
                Action::Show {
                    slot: Slot::App,
                    notice: notice(NoticeKind::Storage, NoticeTarget::Window, "Work is not being saved"),
                    urgency: Urgency::Critical,
                    lasting: Lasting::UntilHandled,
                },
                PageNotice::Show {
                    place: "app".into(),
                    tone: NoticeTone::Failed,
                    title: "Work is not being saved".into(),
                    body: "builder: “Write the notes”".into(),
                    opens: None,
                    stays: true,
                },
            ),
            (Action::Close { slot: Slot::Agent(agent.clone()) }, PageNotice::Close { place: format!("agent:{agent}") }),
        ];
        for (action, shown) in cases {
            assert_eq!(page_notice(&action), shown, "{action:?}");
        }
        let tones = [
            (NoticeKind::TaskCompleted, NoticeTone::Done),
            (NoticeKind::LoopEnded, NoticeTone::Done),
            (NoticeKind::LoopStalled, NoticeTone::Stalled),
            (NoticeKind::AgentQuiet, NoticeTone::Stalled),
            (NoticeKind::UsageLimit, NoticeTone::Stalled),
            (NoticeKind::Overlap, NoticeTone::Asks),
            (NoticeKind::App, NoticeTone::Done),
        ];
        for (kind, expected) in tones {
            assert_eq!(tone(kind), expected, "{kind:?}");
        }
    }
}
