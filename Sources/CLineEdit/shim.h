// libedit (Debian's libedit-dev) for Swift. `el_set` and `history` are C variadic functions,
// which Swift cannot call, so each use the chat needs gets a fixed-argument inline wrapper here.
#include <stdio.h>
#include <histedit.h>

/// The editor's key map: emacs, like bash's default.
static inline int quanta_el_use_emacs(EditLine *el) { return el_set(el, EL_EDITOR, "emacs"); }

/// The function that returns the prompt string.
static inline int quanta_el_set_prompt(EditLine *el, char *(*prompt)(EditLine *)) { return el_set(el, EL_PROMPT, prompt); }

/// Whether libedit installs its own signal handlers (the chat handles SIGINT itself).
static inline int quanta_el_handle_signals(EditLine *el, int on) { return el_set(el, EL_SIGNAL, on); }

/// Clears a tty flag of the editing mode, e.g. "-isig" so Ctrl-C arrives as a key.
static inline int quanta_el_setty(EditLine *el, const char *flag) { return el_set(el, EL_SETTY, "-d", flag, NULL); }

/// Puts the terminal in the editor's raw mode now (`on` 1) instead of after the prompt is
/// drawn; `el_gets` returns it to the cooked mode either way.
static inline int quanta_el_prepare_terminal(EditLine *el, int on) { return el_set(el, EL_PREP_TERM, on); }

/// Adds a named editor function and binds `key` to it.
static inline int quanta_el_bind_function(EditLine *el, const char *name, const char *help,
                                          unsigned char (*function)(EditLine *, int), const char *key) {
    if (el_set(el, EL_ADDFN, name, help, function) != 0) return -1;
    return el_set(el, EL_BIND, key, name, NULL);
}

/// Reads ~/.editrc-style settings (key bindings a user chose), if the file exists.
static inline int quanta_el_source(EditLine *el) { return el_source(el, NULL); }

/// Connects the history list to the editor (Up and Down walk it).
static inline int quanta_el_set_history(EditLine *el, History *h) { return el_set(el, EL_HIST, history, h); }

/// Keeps at most `size` history lines.
static inline int quanta_history_set_size(History *h, int size) {
    HistEvent event;
    return history(h, &event, H_SETSIZE, size);
}

/// Appends a line to the history.
static inline int quanta_history_enter(History *h, const char *line) {
    HistEvent event;
    return history(h, &event, H_ENTER, line);
}
