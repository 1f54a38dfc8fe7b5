package juicefs

// FuseScript is fuseScript, for the tests.
const FuseScript = fuseScript
