// Package engines defines the small interface every cache engine
// implements: the chart and values for a runtime, and the data operations it
// supports. One package per engine implements it. It also renders the cache
// counters engines report as a runtime's status.cacheStates.
package engines
