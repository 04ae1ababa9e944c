//! The engine's modules depend on each other without a cycle: each
//! top-level module (and each part of the engine: its desks, the session
//! registry, the context, the router) may use others only "downward", and
//! the desks (tasks, signals, hooks) not each other at all. A cycle is how
//! the engine's parts became one tangle before; this keeps it from coming
//! back. Test-only code is left out.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use syn::visit::Visit;

/// A module path, as its segments (`["engine", "tasks"]`); the crate root is empty.
type ModulePath = Vec<String>;

fn main_src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Each source file with its module path.
fn source_files(dir: &Path, prefix: &ModulePath, found: &mut Vec<(ModulePath, PathBuf)>) {
    for entry in std::fs::read_dir(dir).expect("the source directory is readable") {
        let path = entry.expect("a directory entry").path();
        let name = path.file_stem().and_then(|n| n.to_str()).expect("a UTF-8 file name").to_owned();
        if path.is_dir() {
            let mut module = prefix.clone();
            module.push(name);
            source_files(&path, &module, found);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let module = match name.as_str() {
                "lib" | "mod" => prefix.clone(),
                _ => [prefix.clone(), vec![name]].concat(),
            };
            found.push((module, path));
        }
    }
}

fn is_test_only(attrs: &[syn::Attribute]) -> bool {
    attrs
        .iter()
        .any(|attr| attr.path().is_ident("cfg") && attr.parse_args::<syn::Ident>().is_ok_and(|ident| ident == "test"))
}

/// Collects the paths a file names that start at `crate`, `super` or `self`,
/// and the modules it declares test-only.
#[derive(Default)]
struct Paths {
    named: Vec<Vec<String>>,
    test_modules: Vec<String>,
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
}

impl<'ast> Visit<'ast> for Paths {
    fn visit_item(&mut self, item: &'ast syn::Item) {
        let attrs = match item {
            syn::Item::Mod(m) => &m.attrs,
            syn::Item::Fn(f) => &f.attrs,
            syn::Item::Impl(i) => &i.attrs,
            syn::Item::Use(u) => &u.attrs,
            syn::Item::Struct(s) => &s.attrs,
            _ => return syn::visit::visit_item(self, item),
        };
        if is_test_only(attrs) {
            if let syn::Item::Mod(module) = item
                && module.content.is_none()
            {
                self.test_modules.push(module.ident.to_string());
            }
            return;
        }
        syn::visit::visit_item(self, item);
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

/// The unit a module belongs to for this check: a top-level module with
/// everything inside it, except the engine, whose parts count one by one.
fn unit(module: &[String]) -> String {
    match module {
        [] => "crate".into(),
        [engine, part, ..] if engine == "engine" => format!("engine::{part}"),
        [top, ..] => top.clone(),
    }
}

/// The module a path starting at `crate`, `super` or `self` leads into.
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

#[test]
fn the_engine_modules_form_no_cycle() {
    let mut files = Vec::new();
    source_files(&main_src(), &Vec::new(), &mut files);
    let parsed: Vec<(ModulePath, PathBuf, Paths)> = files
        .into_iter()
        .map(|(module, path)| {
            let text = std::fs::read_to_string(&path).expect("a readable source file");
            let file = syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let mut paths = Paths::default();
            paths.visit_file(&file);
            (module, path, paths)
        })
        .collect();
    let test_only: BTreeSet<ModulePath> = parsed
        .iter()
        .flat_map(|(module, _, paths)| {
            paths.test_modules.iter().map(move |m| [module.clone(), vec![m.clone()]].concat())
        })
        .collect();
    let live: Vec<_> = parsed.iter().filter(|(module, ..)| !test_only.iter().any(|t| module.starts_with(t))).collect();
    let modules: BTreeSet<ModulePath> = live.iter().map(|(module, ..)| module.clone()).collect();

    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (module, _, paths) in &live {
        let from = unit(module);
        for named in &paths.named {
            let Some(to) = target(module, named, &modules) else { continue };
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

    // Depth-first search for a back edge.
    fn visit<'a>(
        node: &'a str,
        edges: &'a BTreeMap<String, BTreeSet<String>>,
        stack: &mut Vec<&'a str>,
        done: &mut BTreeSet<&'a str>,
    ) -> Option<Vec<String>> {
        if let Some(at) = stack.iter().position(|n| *n == node) {
            return Some(stack[at..].iter().map(|n| n.to_string()).chain([node.to_string()]).collect());
        }
        if done.contains(node) {
            return None;
        }
        stack.push(node);
        for next in edges.get(node).into_iter().flatten() {
            if let Some(cycle) = visit(next, edges, stack, done) {
                return Some(cycle);
            }
        }
        stack.pop();
        done.insert(node);
        None
    }
    let mut done = BTreeSet::new();
    for node in edges.keys() {
        if let Some(cycle) = visit(node, &edges, &mut Vec::new(), &mut done) {
            panic!("a module cycle: {}", cycle.join(" -> "));
        }
    }
    // The check sees the engine's parts (not a vacuous pass).
    for part in ["engine", "engine::state", "engine::tasks", "engine::signals", "engine::hooks", "engine::sessions"] {
        assert!(edges.contains_key(part), "{part} uses other modules: {edges:?}");
    }
}
