// Package embed owns the embedders: turning learning and query text into
// unit vectors for the vector index, behind one small interface.
//
// The default Hash embedder is local, deterministic and free: it never
// touches the network and has no weights. Ollama and OpenAI call a server
// the user configured and runs; they only send text to the configured base
// URL. No embedder ever downloads a model or anything else, and none ever
// logs or returns an API key.
package embed
