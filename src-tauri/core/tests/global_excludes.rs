//! The global excludes file, in a test binary of its own: it sets
//! `XDG_CONFIG_HOME`, which every listing of the process reads.

mod common;

use canopy_core::ErrorCode;
use common::*;

#[test]
fn a_global_excludes_file_reached_through_a_symlink_is_used_as_git_does() {
    // Dotfile managers (stow, home-manager) make ~/.config/git/ignore a
    // symlink; git follows it, and so does Canopy (to a regular file only).
    let t = Tree::new();
    t.write("dotfiles/git-ignore", b"*.log\n");
    t.dir("config/git");
    t.symlink("../../dotfiles/git-ignore", "config/git/ignore");
    std::env::set_var("XDG_CONFIG_HOME", t.at("config"));
    t.repo("repo");
    t.file("repo/a.log");
    t.file("repo/b.txt");
    let hide = |o: ListOptions| {
        list(
            &t.at("repo"),
            &ListOptions {
                hide_ignored: true,
                ..o
            },
        )
        .unwrap()
    };
    let l = hide(opts(1, 100));
    assert!(l.root.error.is_none(), "{:?}", l.root.error);
    assert_eq!(
        (names(folder(&l.root)), folder(&l.root).ignored_hidden),
        (vec!["b.txt"], 2),
        "a.log and .git"
    );
    std::fs::remove_file(t.at("config/git/ignore")).unwrap();
    t.symlink("/dev/zero", "config/git/ignore");
    let l = hide(opts(1, 100));
    assert_eq!(
        l.root.error.as_ref().map(|e| e.code),
        Some(ErrorCode::NotAFile),
        "a link to a device is never opened"
    );
    assert!(names(folder(&l.root)).contains(&"a.log"));
}
