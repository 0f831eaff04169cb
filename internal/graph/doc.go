// Package graph holds Sextant's domain model: repositories, snapshots,
// packages, files and symbols, the stable keys that name symbols across
// snapshots, the coded errors every tool returns, and the Store interface
// that the storage backends implement.
//
// It imports only the standard library, so every other layer can depend on
// it and none of them depends on a backend.
package graph
