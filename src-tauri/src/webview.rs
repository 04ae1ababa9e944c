//! How the window's web view draws, settled before it starts. WebKit
//! composites the page's layers with OpenGL. On a machine with no GPU it can
//! reach (no DRM render node: a virtual machine, a remote desktop, a CI
//! runner) that is Mesa's software renderer, and there compositing costs the
//! web view several times what painting the page straight does: with fifty
//! busy agents, the flows view's slowest frames took 90 ms composited and
//! 27 ms painted (bench/README.md). Such a window paints instead.
//!
//! (WebKitWebDriver's screenshots of a painted window stall once the flows
//! view has been open: to look at the window through the driver, start it
//! with the variable set to `0`.)

use std::path::Path;

/// WebKitGTK's own switch: set, it paints the page without compositing.
pub const NO_COMPOSITING: &str = "WEBKIT_DISABLE_COMPOSITING_MODE";

/// Where the kernel lists the machine's GPUs.
pub const DRI: &str = "/dev/dri";

/// Whether the window should paint without compositing: when the user has
/// not said (`told`: the variable set, either way, stands) and no GPU can
/// render for it.
pub fn paint_without_compositing(told: bool, render_node: bool) -> bool {
    !told && !render_node
}

/// Whether `dri` holds a render node (`renderD128`, …): a GPU a program may
/// draw with.
pub fn has_render_node(dri: &Path) -> bool {
    std::fs::read_dir(dri)
        .map(|entries| entries.flatten().any(|entry| entry.file_name().to_string_lossy().starts_with("renderD")))
        .unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_window_paints_without_compositing_only_with_no_gpu_and_no_word_from_the_user() {
        let cases = [
            // (the user set the variable, a render node, paint without compositing)
            (false, false, true),
            (false, true, false),
            (true, false, false),
            (true, true, false),
        ];
        for (told, render_node, expected) in cases {
            assert_eq!(
                paint_without_compositing(told, render_node),
                expected,
                "told {told}, render node {render_node}"
            );
        }
    }

    #[test]
    fn a_render_node_is_told_from_the_display_cards_and_from_no_gpu_at_all() {
        let dir = tempfile::tempdir().unwrap();
        let dri = dir.path().join("dri");
        assert!(!has_render_node(&dri), "no folder: no GPU");
        std::fs::create_dir(&dri).unwrap();
        std::fs::write(dri.join("card0"), "").unwrap();
        assert!(!has_render_node(&dri), "a display card alone renders nothing for a program");
        std::fs::write(dri.join("renderD128"), "").unwrap();
        assert!(has_render_node(&dri));
    }
}
