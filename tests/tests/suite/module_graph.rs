//! The workspace's code stays in small rooms that lean on each other one way.
//!
//! - In every crate of the workspace (the shell `src-tauri` too), no ring of
//!   files uses each other (`b` names `crate::a::…` and `a` names
//!   `crate::b::…`, or a longer ring). A file leaning on the module that holds
//!   it (`super::…`) is how Rust's modules work and is not counted.
//! - In the engine, each top-level module (and each part of the engine: its
//!   desks, the session registry, the context, the router) may use others
//!   only "downward", and the desks (tasks, signals, hooks, worktrees) not each
//!   other at all. A cycle is how the engine's parts became one tangle
//!   before; this keeps it from coming back.
//! - No source file holds more than [`MAX_FILE_LINES`] lines outside its
//!   tests, and no hand-written function more than [`MAX_FN_LINES`].
//!
//! Test-only code is left out of all three. It reads every crate, so it lives
//! in the crate of the workspace's tests rather than in any one of them.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use syn::spanned::Spanned;
use syn::visit::Visit;

/// The most lines a source file holds outside its tests: past it, a file
/// holds more than one subject, and a reader looks for the one they need.
const MAX_FILE_LINES: usize = 700;

/// The most lines of one hand-written function (its signature to its closing
/// brace): past it, the steps of a function want names of their own.
const MAX_FN_LINES: usize = 100;

/// A module path, as its segments (`["engine", "tasks"]`); the crate root is empty.
type ModulePath = Vec<String>;

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("the tests crate sits in the workspace").to_path_buf()
}

/// The source folder of each member of the workspace, as its manifest lists them.
fn member_sources(root: &Path) -> Vec<PathBuf> {
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).expect("the workspace manifest is readable");
    let manifest: toml::Table = manifest.parse().expect("the workspace manifest is TOML");
    let members = manifest["workspace"]["members"].as_array().expect("the workspace lists its members");
    members.iter().map(|m| root.join(m.as_str().expect("a member is a path")).join("src")).collect()
}

/// One crate's source files, each with its module path. A file of `src/bin/`,
/// and `main.rs` beside a `lib.rs`, is a crate of its own, with a file alone.
fn crates_in(src: &Path) -> Vec<Vec<(ModulePath, PathBuf)>> {
    let mut files = Vec::new();
    let mut own = Vec::new();
    for entry in std::fs::read_dir(src).expect("the source directory is readable") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() && path.file_name().is_some_and(|n| n == "bin") {
            for bin in std::fs::read_dir(&path).expect("the bin directory is readable") {
                let bin = bin.expect("a directory entry").path();
                if bin.extension().is_some_and(|e| e == "rs") {
                    own.push(vec![(Vec::new(), bin)]);
                }
            }
        }
    }
    source_files(src, &Vec::new(), &mut files);
    if src.join("lib.rs").exists() && src.join("main.rs").exists() {
        files.retain(|(_, path)| *path != src.join("main.rs"));
        own.push(vec![(Vec::new(), src.join("main.rs"))]);
    }
    own.push(files);
    own
}

/// Each source file under `dir` (but `src/bin/`) with its module path.
fn source_files(dir: &Path, prefix: &ModulePath, found: &mut Vec<(ModulePath, PathBuf)>) {
    for entry in std::fs::read_dir(dir).expect("the source directory is readable") {
        let path = entry.expect("a directory entry").path();
        let name = path.file_stem().and_then(|n| n.to_str()).expect("a UTF-8 file name").to_owned();
        if path.is_dir() {
            if prefix.is_empty() && name == "bin" {
                continue;
            }
            let mut module = prefix.clone();
            module.push(name);
            source_files(&path, &module, found);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let module = match name.as_str() {
                "lib" | "mod" | "main" if prefix.is_empty() || name == "mod" => prefix.clone(),
                _ => [prefix.clone(), vec![name]].concat(),
            };
            found.push((module, path));
        }
    }
}

fn is_test_only(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|attr| {
        (attr.path().is_ident("cfg") && attr.parse_args::<syn::Ident>().is_ok_and(|ident| ident == "test"))
            || attr.path().is_ident("test")
    })
}

fn attrs_of(item: &syn::Item) -> &[syn::Attribute] {
    match item {
        syn::Item::Mod(m) => &m.attrs,
        syn::Item::Fn(f) => &f.attrs,
        syn::Item::Impl(i) => &i.attrs,
        syn::Item::Use(u) => &u.attrs,
        syn::Item::Struct(s) => &s.attrs,
        syn::Item::Enum(e) => &e.attrs,
        syn::Item::Const(c) => &c.attrs,
        syn::Item::Static(s) => &s.attrs,
        syn::Item::Trait(t) => &t.attrs,
        syn::Item::Type(t) => &t.attrs,
        syn::Item::Macro(m) => &m.attrs,
        _ => &[],
    }
}

/// What one file says that these checks read: the paths it names, the
/// modules it declares test-only, its length and its long functions.
#[derive(Default)]
struct Paths {
    /// Paths named, as segments (`use` trees unfolded).
    named: Vec<Vec<String>>,
    test_modules: Vec<String>,
    /// Lines spent on test-only items.
    test_lines: usize,
    /// Hand-written functions over [`MAX_FN_LINES`]: name, first line, length.
    long_fns: Vec<(String, usize, usize)>,
}

impl Paths {
    fn use_tree(&mut self, prefix: &[String], tree: &syn::UseTree) {
        match tree {
            syn::UseTree::Path(path) => {
                self.use_tree(&[prefix, &[path.ident.to_string()]].concat(), &path.tree);
            }
            syn::UseTree::Name(name) => self.named.push([prefix, &[name.ident.to_string()]].concat()),
            syn::UseTree::Rename(rename) => self.named.push([prefix, &[rename.ident.to_string()]].concat()),
            syn::UseTree::Glob(_) => self.named.push(prefix.to_vec()),
            syn::UseTree::Group(group) => group.items.iter().for_each(|item| self.use_tree(prefix, item)),
        }
    }

    fn function(&mut self, name: &syn::Ident, sig: &syn::Signature, block: &syn::Block) {
        let first = sig.span().start().line;
        let length = block.span().end().line + 1 - first;
        if length > MAX_FN_LINES {
            self.long_fns.push((name.to_string(), first, length));
        }
    }
}

impl<'ast> Visit<'ast> for Paths {
    fn visit_item(&mut self, item: &'ast syn::Item) {
        if is_test_only(attrs_of(item)) {
            if let syn::Item::Mod(module) = item
                && module.content.is_none()
            {
                self.test_modules.push(module.ident.to_string());
            }
            self.test_lines += item.span().end().line + 1 - item.span().start().line;
            return;
        }
        syn::visit::visit_item(self, item);
    }

    fn visit_item_fn(&mut self, item: &'ast syn::ItemFn) {
        self.function(&item.sig.ident, &item.sig, &item.block);
        syn::visit::visit_item_fn(self, item);
    }

    fn visit_impl_item_fn(&mut self, item: &'ast syn::ImplItemFn) {
        if is_test_only(&item.attrs) {
            return;
        }
        self.function(&item.sig.ident, &item.sig, &item.block);
        syn::visit::visit_impl_item_fn(self, item);
    }

    fn visit_trait_item_fn(&mut self, item: &'ast syn::TraitItemFn) {
        if let Some(block) = &item.default {
            self.function(&item.sig.ident, &item.sig, block);
        }
        syn::visit::visit_trait_item_fn(self, item);
    }

    fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
        self.use_tree(&[], &item.tree);
    }

    // `pub(crate)` and `pub(super)` name a module but use nothing of it.
    fn visit_visibility(&mut self, _: &'ast syn::Visibility) {}

    fn visit_path(&mut self, path: &'ast syn::Path) {
        self.named.push(path.segments.iter().map(|s| s.ident.to_string()).collect());
        syn::visit::visit_path(self, path);
    }
}

/// One source file, read.
struct SourceFile {
    module: ModulePath,
    path: PathBuf,
    lines: usize,
    paths: Paths,
}

/// A crate's files that are not test-only, and its modules.
struct Crate {
    files: Vec<SourceFile>,
    modules: BTreeSet<ModulePath>,
}

fn read_crate(files: Vec<(ModulePath, PathBuf)>) -> Crate {
    let parsed: Vec<SourceFile> = files
        .into_iter()
        .map(|(module, path)| {
            let text = std::fs::read_to_string(&path).expect("a readable source file");
            let file = syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let mut paths = Paths::default();
            paths.visit_file(&file);
            SourceFile { module, path, lines: text.lines().count(), paths }
        })
        .collect();
    let test_only: BTreeSet<ModulePath> = parsed
        .iter()
        .flat_map(|file| file.paths.test_modules.iter().map(|m| [file.module.clone(), vec![m.clone()]].concat()))
        .collect();
    let files: Vec<SourceFile> =
        parsed.into_iter().filter(|file| !test_only.iter().any(|t| file.module.starts_with(t))).collect();
    let modules = files.iter().map(|file| file.module.clone()).collect();
    Crate { files, modules }
}

/// Every crate of the workspace, read.
fn workspace_crates() -> Vec<Crate> {
    member_sources(&workspace_root()).iter().flat_map(|src| crates_in(src)).map(read_crate).collect()
}

/// The module a path leads into: one starting at `crate`, `super` or `self`,
/// or at a child module of `from` (`child::item`, as Rust 2018 reads it).
fn target(from: &ModulePath, path: &[String], modules: &BTreeSet<ModulePath>) -> Option<ModulePath> {
    let (mut base, rest) = match path.first().map(String::as_str) {
        Some("crate") => (Vec::new(), &path[1..]),
        Some("self") => (from.clone(), &path[1..]),
        Some("super") => {
            let mut base = from.clone();
            let mut rest = path;
            // In `x.rs` and `x/mod.rs` alike, `super` is the parent of `x`.
            while rest.first().map(String::as_str) == Some("super") {
                base.pop();
                rest = &rest[1..];
            }
            (base, rest)
        }
        // A lone name is more often a local than a module.
        Some(child) if path.len() > 1 && modules.contains(&[from.clone(), vec![child.to_owned()]].concat()) => {
            (from.clone(), path)
        }
        _ => return None,
    };
    for segment in rest {
        let mut deeper = base.clone();
        deeper.push(segment.clone());
        if !modules.contains(&deeper) {
            break;
        }
        base = deeper;
    }
    Some(base)
}

/// A ring in a directed graph, as its nodes with the first repeated at the
/// end, if the graph has one. Depth-first, looking for an edge back into the
/// path being walked.
fn find_circle<N: Ord + Clone>(edges: &BTreeMap<N, BTreeSet<N>>) -> Option<Vec<N>> {
    fn visit<'a, N: Ord + Clone>(
        node: &'a N,
        edges: &'a BTreeMap<N, BTreeSet<N>>,
        stack: &mut Vec<&'a N>,
        done: &mut BTreeSet<&'a N>,
    ) -> Option<Vec<N>> {
        if let Some(at) = stack.iter().position(|n| *n == node) {
            return Some(stack[at..].iter().map(|n| (*n).clone()).chain([node.clone()]).collect());
        }
        if done.contains(node) {
            return None;
        }
        stack.push(node);
        for next in edges.get(node).into_iter().flatten() {
            if let Some(circle) = visit(next, edges, stack, done) {
                return Some(circle);
            }
        }
        stack.pop();
        done.insert(node);
        None
    }
    let mut done = BTreeSet::new();
    edges.keys().find_map(|node| visit(node, edges, &mut Vec::new(), &mut done))
}

/// Which files of a crate use which, by module; a file's use of a module
/// that holds it (`super::…`, `crate::…` of an ancestor) is left out.
fn file_edges(krate: &Crate) -> BTreeMap<ModulePath, BTreeSet<ModulePath>> {
    let mut edges: BTreeMap<ModulePath, BTreeSet<ModulePath>> = BTreeMap::new();
    for file in &krate.files {
        for named in &file.paths.named {
            let Some(to) = target(&file.module, named, &krate.modules) else { continue };
            if !file.module.starts_with(&to) {
                edges.entry(file.module.clone()).or_default().insert(to);
            }
        }
    }
    edges
}

/// The first ring of files in a crate, by their paths.
fn file_circle(krate: &Crate) -> Option<Vec<String>> {
    let root = workspace_root();
    let shown: BTreeMap<&ModulePath, String> = krate
        .files
        .iter()
        .map(|f| (&f.module, f.path.strip_prefix(&root).unwrap_or(&f.path).display().to_string()))
        .collect();
    find_circle(&file_edges(krate)).map(|ring| ring.iter().map(|m| shown[m].clone()).collect())
}

#[test]
fn no_crate_has_a_ring_of_files() {
    let crates = workspace_crates();
    let circles: Vec<String> = crates.iter().filter_map(file_circle).map(|ring| ring.join("\n  -> ")).collect();
    assert!(circles.is_empty(), "files that use each other in a ring:\n  {}", circles.join("\n\n  "));
    // Not a vacuous pass: the shell and the engine are read, with their uses.
    let read: Vec<&Path> = crates.iter().flat_map(|c| &c.files).map(|f| f.path.as_path()).collect();
    for expected in ["src-tauri/src/main.rs", "crates/switchboard-core/src/engine/mod.rs"] {
        assert!(read.iter().any(|p| p.ends_with(expected)), "{expected} is not read");
    }
    let used: usize = crates.iter().map(|c| file_edges(c).values().map(BTreeSet::len).sum::<usize>()).sum();
    assert!(used > 100, "only {used} uses between files were seen");
}

/// A ring planted in a real crate on disk is found through the same reading.
#[test]
fn a_planted_ring_of_files_is_found() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    std::fs::create_dir_all(src.join("engine")).unwrap();
    std::fs::write(src.join("lib.rs"), "mod engine;\nmod store;\nmod link;\n").unwrap();
    std::fs::write(src.join("engine/mod.rs"), "mod desk;\npub use desk::Desk;\n").unwrap();
    std::fs::write(src.join("engine/desk.rs"), "use crate::store::Row;\npub struct Desk(Row);\n").unwrap();
    std::fs::write(src.join("store.rs"), "pub struct Row(crate::link::Link);\n").unwrap();
    std::fs::write(src.join("link.rs"), "pub struct Link;\nfn quit(_: &crate::engine::desk::Desk) {}\n").unwrap();
    let [krate] = crates_in(&src).into_iter().map(read_crate).collect::<Vec<_>>().try_into().ok().unwrap();
    let ring = file_circle(&krate).expect("the planted ring is found");
    let ends: Vec<&str> = ring.iter().map(|p| p.strip_prefix(src.to_str().unwrap()).expect("under src")).collect();
    assert_eq!(ends, ["/engine/desk.rs", "/store.rs", "/link.rs", "/engine/desk.rs"]);

    // Cut the ring (the link no longer reaches up to the desk): nothing is found.
    std::fs::write(src.join("link.rs"), "pub struct Link;\n").unwrap();
    let [krate] = crates_in(&src).into_iter().map(read_crate).collect::<Vec<_>>().try_into().ok().unwrap();
    assert_eq!(file_circle(&krate), None);
}

#[test]
fn the_ring_finder_on_small_graphs() {
    fn graph(edges: &[(&'static str, &'static str)]) -> BTreeMap<&'static str, BTreeSet<&'static str>> {
        let mut graph: BTreeMap<_, BTreeSet<_>> = BTreeMap::new();
        for (from, to) in edges {
            graph.entry(*from).or_default().insert(*to);
        }
        graph
    }
    /// A case's name, its graph's edges, and the ring found (none: none).
    type Case = (&'static str, &'static [(&'static str, &'static str)], Option<&'static [&'static str]>);
    let cases: &[Case] = &[
        ("nothing", &[], None),
        ("a chain", &[("a", "b"), ("b", "c")], None),
        ("a diamond", &[("a", "b"), ("a", "c"), ("b", "d"), ("c", "d")], None),
        ("two files", &[("a", "b"), ("b", "a")], Some(&["a", "b", "a"])),
        ("a file and itself", &[("a", "a")], Some(&["a", "a"])),
        ("three files", &[("a", "b"), ("b", "c"), ("c", "a")], Some(&["a", "b", "c", "a"])),
        ("a ring below a chain", &[("a", "b"), ("b", "c"), ("c", "d"), ("d", "b")], Some(&["b", "c", "d", "b"])),
        ("a ring not reached from the first", &[("a", "b"), ("x", "y"), ("y", "x")], Some(&["x", "y", "x"])),
        (
            "the shell's ring",
            &[("link", "desktop"), ("desktop", "engines"), ("engines", "link"), ("desktop", "app")],
            Some(&["desktop", "engines", "link", "desktop"]),
        ),
    ];
    for (name, edges, expected) in cases {
        let found = find_circle(&graph(edges));
        assert_eq!(found.as_deref(), *expected, "{name}");
    }
}

#[test]
fn no_file_is_over_the_line() {
    let root = workspace_root();
    let long: Vec<(String, usize)> = workspace_crates()
        .iter()
        .flat_map(|c| &c.files)
        .filter_map(|f| {
            let lines = f.lines - f.paths.test_lines;
            let shown = f.path.strip_prefix(&root).unwrap_or(&f.path).display().to_string();
            (lines > MAX_FILE_LINES).then_some((shown, lines))
        })
        .collect();
    assert!(long.is_empty(), "files over {MAX_FILE_LINES} lines outside their tests: {long:#?}");
}

#[test]
fn no_function_is_over_the_line() {
    let root = workspace_root();
    let long: Vec<(String, usize, usize)> = workspace_crates()
        .iter()
        .flat_map(|c| &c.files)
        .flat_map(|f| {
            let shown = f.path.strip_prefix(&root).unwrap_or(&f.path).display().to_string();
            f.paths.long_fns.iter().map(move |(name, line, length)| (format!("{shown} {name}"), *line, *length))
        })
        .collect();
    assert!(long.is_empty(), "functions over {MAX_FN_LINES} lines (name, first line, length): {long:#?}");
}

/// The unit a module of the engine's crate belongs to for the engine's own
/// check: a top-level module with everything inside it, except the engine,
/// whose parts count one by one.
fn unit(module: &[String]) -> String {
    match module {
        [] => "crate".into(),
        [engine, part, ..] if engine == "engine" => format!("engine::{part}"),
        [top, ..] => top.clone(),
    }
}

#[test]
fn the_engine_modules_form_no_cycle() {
    let src = workspace_root().join("crates/switchboard-core/src");
    let krate = read_crate(crates_in(&src).pop().expect("the engine's crate"));
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in &krate.files {
        let from = unit(&file.module);
        // Only paths from `crate`, `super` or `self`: a parent's `child::…` is
        // how the engine's front re-exports its parts, not a use of them.
        let rooted = file.paths.named.iter().filter(|p| matches!(p[0].as_str(), "crate" | "super" | "self"));
        for named in rooted {
            let Some(to) = target(&file.module, named, &krate.modules) else { continue };
            let to = unit(&to);
            if to != from {
                edges.entry(from.clone()).or_default().insert(to);
            }
        }
    }
    // The crate root only gathers the public surface; nothing may lean on it.
    let leaning_on_root: Vec<&String> =
        edges.iter().filter(|(from, to)| *from != "crate" && to.contains("crate")).map(|(from, _)| from).collect();
    assert!(
        leaning_on_root.is_empty(),
        "these use the crate root's re-exports instead of the module: {leaning_on_root:?}"
    );

    // Desks talk through the router's follow-ups, never to each other.
    let desks = ["engine::tasks", "engine::signals", "engine::hooks", "engine::worktrees"];
    for desk in desks {
        let reaches: Vec<&String> =
            edges.get(desk).into_iter().flatten().filter(|to| desks.contains(&to.as_str())).collect();
        assert!(reaches.is_empty(), "{desk} uses another desk: {reaches:?}");
    }

    if let Some(cycle) = find_circle(&edges) {
        panic!("a module cycle: {}", cycle.join(" -> "));
    }
    // The check sees the engine's parts (not a vacuous pass).
    for part in ["engine", "engine::state", "engine::tasks", "engine::signals", "engine::hooks", "engine::sessions"] {
        assert!(edges.contains_key(part), "{part} uses other modules: {edges:?}");
    }
}
