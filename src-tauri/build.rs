fn main() { tauri_build::try_build(tauri_build::Attributes::new().config_path("../tauri.conf.json")).expect("tauri build configuration is valid") }
