// Package bench measures reflect: retrieval quality on BEIR-layout datasets
// (loaded as real learnings through store and index, queried through the
// same Search as `reflect search`), and synthetic knowledge bases of
// realistic size for latency benchmarks. It never touches a user's KB:
// every run works in a directory the caller names.
package bench
