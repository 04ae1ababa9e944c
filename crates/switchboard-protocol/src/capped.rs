//! Caps on the text agents write that the app keeps: a summary's sections,
//! a signal's fields, what a hook says. Each field is cut at its cap on a
//! character boundary and says so at its end, so the store and the window
//! hold a bounded amount per field whatever an agent prints.

/// A field of prose as kept (a summary's objective or test results, a list
/// item, a signal's field, a hook's error or message): far more than a
/// person reads in a panel, small enough that many stay light in the store
/// and the window.
pub const MAX_TEXT_FIELD_BYTES: usize = 16 * 1024;

/// A name or an identifier as kept (an agent id, a timestamp, a tool's name,
/// a notification's type, a team or agent name from the environment).
pub const MAX_NAME_BYTES: usize = 256;

/// A path as kept: no file system takes a longer one (Linux's `PATH_MAX`),
/// so a longer one names nothing and is refused when it is checked.
pub const MAX_PATH_BYTES: usize = 4096;

/// The items of a list field as kept (accomplishments, notes, questions,
/// deliverables, recommendations): past it, the last item kept says how
/// many more there were.
pub const MAX_LIST_ITEMS: usize = 100;

/// What ends a field cut at its cap.
pub const CUT_MARK: &str = " … [cut]";

/// `text` as kept under `max` bytes (`max` past [`CUT_MARK`]'s length): as
/// it is when it fits, else its start on a character boundary followed by
/// [`CUT_MARK`], at most `max` bytes in all.
pub fn capped(text: impl Into<String>, max: usize) -> String {
    let mut text = text.into();
    if text.len() > max {
        let mut end = max.saturating_sub(CUT_MARK.len());
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
        text.push_str(CUT_MARK);
    }
    text
}

/// A list as kept: at most [`MAX_LIST_ITEMS`] items, each [`capped`] at
/// `max` bytes; when items were left out, the last one kept is a line
/// saying how many.
pub fn capped_list(items: Vec<String>, max: usize) -> Vec<String> {
    let total = items.len();
    let mut kept: Vec<String> = items.into_iter().take(MAX_LIST_ITEMS).map(|item| capped(item, max)).collect();
    if total > MAX_LIST_ITEMS {
        kept.truncate(MAX_LIST_ITEMS - 1);
        kept.push(format!("… [{} more not kept]", total - kept.len()));
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_cut_at_their_cap_on_a_character_boundary_and_marked() {
        let cases: [(&str, usize, &str); 4] = [
            ("short", 16, "short"),
            ("exactly sixteen!", 16, "exactly sixteen!"),
            ("a little too long", 16, "a litt … [cut]"),
            ("ééééééééé", 17, "ééé … [cut]"),
        ];
        for (text, max, expected) in cases {
            let kept = capped(text, max);
            assert_eq!(kept, expected, "{text:?}");
            assert!(kept.len() <= max, "{kept:?}");
        }
        assert_eq!(capped("x".repeat(MAX_TEXT_FIELD_BYTES * 3), MAX_TEXT_FIELD_BYTES).len(), MAX_TEXT_FIELD_BYTES);
    }

    #[test]
    fn lists_keep_their_first_items_and_say_how_many_more_there_were() {
        let items = |n: usize| (0..n).map(|i| format!("item {i}")).collect::<Vec<_>>();
        assert_eq!(capped_list(items(3), 64), items(3));
        assert_eq!(capped_list(items(MAX_LIST_ITEMS), 64), items(MAX_LIST_ITEMS));
        let kept = capped_list(items(MAX_LIST_ITEMS + 50), 64);
        assert_eq!(kept.len(), MAX_LIST_ITEMS);
        assert_eq!(kept[MAX_LIST_ITEMS - 2], format!("item {}", MAX_LIST_ITEMS - 2));
        assert_eq!(kept[MAX_LIST_ITEMS - 1], "… [51 more not kept]");
        assert_eq!(capped_list(vec!["x".repeat(100)], 16), ["xxxxxx … [cut]"]);
    }
}
