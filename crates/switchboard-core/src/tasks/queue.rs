//! Queue order: which task an agent takes next, and what a drag in the
//! queue means. Pure functions over the queued tasks of one agent.

use switchboard_api::pick_key;
use switchboard_protocol::{Priority, TaskId};

/// What the queue order depends on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Queued {
    pub id: TaskId,
    pub priority: Priority,
    /// Lower runs first, within a priority.
    pub order: i64,
}

/// The queue in pick order ([`pick_key`]: urgent before normal, then by `order`).
pub fn pick_order(queue: &mut [Queued]) {
    queue.sort_by_key(|q| pick_key(q.priority, q.order));
}

/// The task to run next.
pub fn pick_next(queue: &[Queued]) -> Option<&Queued> {
    queue.iter().min_by_key(|q| pick_key(q.priority, q.order))
}

/// A task's 1-based place in the queue.
pub fn position(queue: &[Queued], id: &TaskId) -> Option<u32> {
    let mut ordered = queue.to_vec();
    pick_order(&mut ordered);
    ordered.iter().position(|q| &q.id == id).map(|i| i as u32 + 1)
}

/// The queue after moving `id` to the 0-based `to_index` of the pick order,
/// with every task's new priority and order. A task dropped among the other
/// priority's tasks takes that priority, so the queue runs in the order the
/// user sees. `None` if the task is not queued.
pub fn moved(queue: &[Queued], id: &TaskId, to_index: usize) -> Option<Vec<Queued>> {
    let mut ordered = queue.to_vec();
    pick_order(&mut ordered);
    let from = ordered.iter().position(|q| &q.id == id)?;
    let mut task = ordered.remove(from);
    let to = to_index.min(ordered.len());
    let before = to.checked_sub(1).map(|i| ordered[i].priority);
    let after = ordered.get(to).map(|q| q.priority);
    if let Some(before) = before.filter(|p| *p > task.priority) {
        task.priority = before;
    } else if let Some(after) = after.filter(|p| *p < task.priority) {
        task.priority = after;
    }
    ordered.insert(to, task);
    for (order, task) in ordered.iter_mut().enumerate() {
        task.order = order as i64;
    }
    Some(ordered)
}

#[cfg(test)]
mod tests {
    use super::*;
    use Priority::{Normal, Urgent};

    fn ids(n: usize) -> Vec<TaskId> {
        (0..n).map(|_| TaskId::new()).collect()
    }

    #[test]
    fn pick_next_cases() {
        let t = ids(4);
        let q = |i: usize, priority, order| Queued { id: t[i].clone(), priority, order };
        let cases = [
            (vec![], None),
            (vec![q(0, Normal, 1)], Some(0)),
            // First in, first out within a priority.
            (vec![q(0, Normal, 2), q(1, Normal, 1), q(2, Normal, 3)], Some(1)),
            // Urgent before normal, however late it came.
            (vec![q(0, Normal, 1), q(1, Normal, 2), q(2, Urgent, 9)], Some(2)),
            (vec![q(3, Urgent, 5), q(2, Urgent, 4), q(0, Normal, 0)], Some(2)),
        ];
        for (queue, expected) in cases {
            assert_eq!(pick_next(&queue).map(|q| q.id.clone()), expected.map(|i| t[i].clone()), "{queue:?}");
        }
    }

    #[test]
    fn positions_follow_pick_order() {
        let t = ids(3);
        let queue = vec![
            Queued { id: t[0].clone(), priority: Normal, order: 1 },
            Queued { id: t[1].clone(), priority: Normal, order: 2 },
            Queued { id: t[2].clone(), priority: Urgent, order: 3 },
        ];
        assert_eq!(position(&queue, &t[2]), Some(1));
        assert_eq!(position(&queue, &t[0]), Some(2));
        assert_eq!(position(&queue, &t[1]), Some(3));
        assert_eq!(position(&queue, &TaskId::new()), None);
    }

    #[test]
    fn moves() {
        let t = ids(4);
        // Pick order: U0 U1 N2 N3.
        let queue = vec![
            Queued { id: t[2].clone(), priority: Normal, order: 10 },
            Queued { id: t[0].clone(), priority: Urgent, order: 3 },
            Queued { id: t[3].clone(), priority: Normal, order: 11 },
            Queued { id: t[1].clone(), priority: Urgent, order: 4 },
        ];
        // (task, to_index) -> resulting order with priorities
        let cases = [
            // Within normals: N3 before N2.
            (3, 2, vec![(0, Urgent), (1, Urgent), (3, Normal), (2, Normal)]),
            // A normal dragged to the top becomes urgent.
            (3, 0, vec![(3, Urgent), (0, Urgent), (1, Urgent), (2, Normal)]),
            // An urgent dragged to the bottom becomes normal.
            (0, 3, vec![(1, Urgent), (2, Normal), (3, Normal), (0, Normal)]),
            // At the border of the groups: it keeps its own priority.
            (2, 2, vec![(0, Urgent), (1, Urgent), (2, Normal), (3, Normal)]),
            // An urgent dropped behind a normal becomes normal.
            (1, 2, vec![(0, Urgent), (2, Normal), (1, Normal), (3, Normal)]),
            // Ahead of an urgent task: it becomes urgent too.
            (2, 1, vec![(0, Urgent), (2, Urgent), (1, Urgent), (3, Normal)]),
            // Past the end clamps.
            (0, 99, vec![(1, Urgent), (2, Normal), (3, Normal), (0, Normal)]),
        ];
        for (task, to, expected) in cases {
            let result = moved(&queue, &t[task], to).unwrap();
            let got: Vec<_> =
                result.iter().map(|q| (t.iter().position(|id| id == &q.id).unwrap(), q.priority)).collect();
            assert_eq!(got, expected, "move {task} to {to}");
            let mut resorted = result.clone();
            pick_order(&mut resorted);
            assert_eq!(resorted, result, "the new order is the pick order");
        }
        assert!(moved(&queue, &TaskId::new(), 0).is_none());
    }
}
