//! The files generated for the window (its TypeScript bindings, the
//! diagrams and presets its fake backend answers with) are the ones
//! committed.

#[cfg(test)]
mod tests {
    use switchboard_api::bindings::{BINDINGS_PATH, typescript};

    /// Compares a generated file with the committed one; `SWITCHBOARD_BLESS=1` writes it.
    fn check_fresh(relative: &str, generated: &str) {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(relative);
        if std::env::var_os("SWITCHBOARD_BLESS").is_some() {
            std::fs::write(&path, generated).unwrap();
            return;
        }
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            committed == generated,
            "{relative} is stale; regenerate it with `SWITCHBOARD_BLESS=1 cargo test -p switchboard-core bindings`"
        );
    }

    /// The diagrams as the window's fake backend answers `flow_diagrams`
    /// (the real backend asks the engine).
    #[test]
    fn diagram_data_for_the_fake_backend_is_fresh() {
        let generated = serde_json::to_string_pretty(crate::flows::diagrams::all()).unwrap() + "\n";
        check_fresh("ui/src/test/diagrams.json", &generated);
    }

    /// The presets as the window's fake backend answers `agent_presets`.
    #[test]
    fn preset_data_for_the_fake_backend_is_fresh() {
        let generated = serde_json::to_string_pretty(&crate::presets::presets()).unwrap() + "\n";
        check_fresh("ui/src/test/presets.json", &generated);
    }

    #[test]
    fn bindings_are_fresh() {
        check_fresh(BINDINGS_PATH, &typescript());
    }
}
