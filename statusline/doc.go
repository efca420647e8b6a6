// Package statusline owns last-event.json — the most recent thing a hook or
// the drainer did, written atomically — and the short status fragment that
// agents show in their status bar, e.g. "🧠 recalled 3 · queued 1".
//
// Rendering is pure (Render); Line adds the live queue depth. It must never
// block or fail loudly: the status bar is redrawn all the time, so a missing
// or corrupt file renders as "nothing happened yet" rather than an error,
// and nothing here takes a lock or waits on the drainer.
package statusline
