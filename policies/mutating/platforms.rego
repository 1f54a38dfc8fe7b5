# Serverless platforms.
#
# A Pod labelled serverless.fluid.io/inject=true may name its platform in
# the annotation serverless.fluid.io/platform, as in Fluid. Two platforms
# are built in: default (the sidecar as the other rules make it) and
# unprivileged (as the label unprivileged.sidecar.fluid.io/inject=true).
# A platform team adds its own in policy data, mutating.platforms.<name>:
#   unprivileged: true            the sidecar drops its privileges
#   env: {NAME: value}            set on every sidecar of the platform's Pods
#   args:                         the platform's extra arguments: annotation
#     <key>: {env: NAME}          <name>.fluid.io/<key> sets NAME on the
#                                 sidecars to the annotation's value
# Any other platform is refused, naming the ones there are; an extra
# argument the platform does not read is warned about.
package sluice.mutating

import rego.v1

builtin_platforms := {"default", "unprivileged"}

platform := p if {
	serverless
	p := input.pod.metadata.annotations["serverless.fluid.io/platform"]
	is_string(p)
}

# The platform's settings; {} for a built-in one.
platform_config := object.get(data.sluice.config.mutating.platforms, platform, {})

platform_prefix := concat("", [platform, ".fluid.io/"])

# The platform's extra arguments, by key.
platform_args[key] := value if {
	prefix := platform_prefix
	some name, value in input.pod.metadata.annotations
	startswith(name, prefix)
	key := substring(name, count(prefix), -1)
}

known_platforms := builtin_platforms | {p | some p, _ in data.sluice.config.mutating.platforms}

# METADATA
# description: "A Pod's serverless.fluid.io/platform must name a known platform (built in, or mutating.platforms)."
deny contains {"rule": "unknown-platform", "message": msg} if {
	p := platform
	not p in known_platforms
	msg := sprintf("serverless.fluid.io/platform: unknown platform %q; the platforms are %s (policy data mutating.platforms adds others)", [p, concat(", ", sort(known_platforms))])
}

unprivileged if platform == "unprivileged"

unprivileged if platform_config.unprivileged == true

sidecar_env contains {"name": name, "value": value} if {
	some name, value in platform_config.env
}

sidecar_env contains {"name": platform_config.args[key].env, "value": value} if {
	some key, value in platform_args
}

warnings contains msg if {
	some key, _ in platform_args
	not platform_config.args[key].env
	msg := sprintf("%s%s: platform %q reads no argument %q (it reads %s); the annotation changes nothing", [platform_prefix, key, platform, key, platform_arg_names])
}

platform_arg_names := "none" if count(object.get(platform_config, "args", {})) == 0

platform_arg_names := concat(", ", sort({k | some k, _ in platform_config.args})) if count(object.get(platform_config, "args", {})) > 0

warnings contains msg if {
	is_string(input.pod.metadata.annotations["serverless.fluid.io/platform"])
	not serverless
	uses_datasets
	msg := "serverless.fluid.io/platform: the Pod gets no FUSE sidecar (it is not labelled serverless.fluid.io/inject=true), so the annotation changes nothing"
}
