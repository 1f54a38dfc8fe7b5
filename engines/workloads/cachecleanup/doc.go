// Package cachecleanup plans and renders a deleted runtime's cache
// cleanup: which nodes held its hostPath cache directories (read from its
// engine's pods), the Jobs, pinned to those nodes, that remove exactly
// those directories (charts/cachecleanup), and the bounds its
// cleanCachePolicy puts on them.
package cachecleanup
