package jindo

import (
	corev1 "k8s.io/api/core/v1"
)

// values are the chart's values (charts/jindo/values.yaml documents each
// field). They hold Secret names and keys, never Secret data.
type values struct {
	Name      string `json:"name"`
	Namespace string `json:"namespace"`
	// DatasetID is "<namespace>-<name>", the fluid.io/dataset label value.
	DatasetID string `json:"datasetID"`
	Placement string `json:"placement"`
	// MountsDigest is engines.MountsDigest of the Dataset, on the
	// StatefulSets.
	MountsDigest string `json:"mountsDigest"`

	Image        image                `json:"image"`
	FuseImage    image                `json:"fuseImage"`
	HostNetwork  bool                 `json:"hostNetwork"`
	NodeAffinity *corev1.NodeSelector `json:"nodeAffinity"`
	RunAs        *runAs               `json:"runAs"`
	// User is spec.user, the user name JindoCache requests are made as.
	User    string          `json:"user"`
	Volumes []corev1.Volume `json:"volumes"`

	Master master `json:"master"`
	Worker worker `json:"worker"`
	Fuse   fuse   `json:"fuse"`

	Tiers       []tier       `json:"tiers"`
	UFSVolumes  []ufsVolume  `json:"ufsVolumes"`
	Credentials *credentials `json:"credentials"`
	Config      config       `json:"config"`
}

type image struct {
	Repository string `json:"repository"`
	Tag        string `json:"tag"`
	PullPolicy string `json:"pullPolicy"`
}

type runAs struct {
	UID *int64 `json:"uid"`
	GID *int64 `json:"gid"`
}

// pod is what every component's pods carry besides the engine's own labels.
type pod struct {
	Enabled          bool                          `json:"enabled"`
	Resources        corev1.ResourceRequirements   `json:"resources"`
	Env              map[string]string             `json:"env"`
	NodeSelector     map[string]string             `json:"nodeSelector"`
	Tolerations      []corev1.Toleration           `json:"tolerations"`
	Labels           map[string]string             `json:"labels"`
	Annotations      map[string]string             `json:"annotations"`
	VolumeMounts     []corev1.VolumeMount          `json:"volumeMounts"`
	ImagePullSecrets []corev1.LocalObjectReference `json:"imagePullSecrets"`
}

type master struct {
	pod
	Replicas int32 `json:"replicas"`
	RPCPort  int   `json:"rpcPort"`
	// RaftPort is set only with three masters (Raft HA).
	RaftPort int `json:"raftPort"`
	// Hosts are the masters' stable DNS names, through the headless Service.
	Hosts []string `json:"hosts"`
	// Address is the namespace RPC address clients dial: host:port, comma-separated.
	Address string `json:"address"`
	// RaftConf is the Raft initial configuration (host:raftPort:0, ...).
	RaftConf string `json:"raftConf"`
}

type worker struct {
	pod
	Replicas int32 `json:"replicas"`
	RPCPort  int   `json:"rpcPort"`
}

type fuse struct {
	pod
	// Args are the FUSE program's arguments.
	Args []string `json:"args"`
	// HostPath is the host directory holding the mount point, mounted
	// Bidirectional at the same path; MountPath is the mount point itself.
	HostPath  string `json:"hostPath"`
	MountPath string `json:"mountPath"`
	// LabelKey is the node label the CSI plugin sets where FUSE must run.
	LabelKey string `json:"labelKey"`
	// Mode is "fuseOnly" when neither masters nor workers run.
	Mode string `json:"mode"`
}

// tier is one cache directory of levels[0] on every worker.
type tier struct {
	Name string `json:"name"`
	// Path is the directory as the worker sees it.
	Path string `json:"path"`
	// Type is hostPath or emptyDir.
	Type string `json:"type"`
	// HostPath, for type hostPath, is the node directory mounted at Path:
	// the runtime's own below it (engines.HostCacheDir).
	HostPath string `json:"hostPath,omitempty"`
	// Medium is the emptyDir medium ("" or "Memory").
	Medium string `json:"medium"`
	// SizeLimit is the emptyDir size limit, e.g. "10Gi".
	SizeLimit string `json:"sizeLimit"`
}

// ufsVolume is a local:// or pvc:// mount given to masters, workers and FUSE.
type ufsVolume struct {
	Name      string `json:"name"`
	HostPath  string `json:"hostPath"`
	ClaimName string `json:"claimName"`
	SubPath   string `json:"subPath"`
	MountPath string `json:"mountPath"`
	ReadOnly  bool   `json:"readOnly"`
}

// credentials is the Secret volume mounted at /token: either a whole Secret
// (spec.secret) or the projected keys named by encryptOptions.
type credentials struct {
	Secret string          `json:"secret"`
	Items  []secretProject `json:"items"`
}

type secretProject struct {
	Secret string `json:"secret"`
	Key    string `json:"key"`
	Path   string `json:"path"`
}

// config is the generated JindoCache configuration, by file section.
type config struct {
	// jindocache.cfg sections.
	Common map[string]string `json:"common"`
	Server map[string]string `json:"server"`
	Worker map[string]string `json:"worker"`
	Client map[string]string `json:"client"`
	// jindosdk.cfg sections ([common] and [jindosdk]).
	SDKCommon map[string]string `json:"sdkCommon"`
	SDK       map[string]string `json:"sdk"`
	// CacheSets become cacheset.xml, one per Dataset mount.
	CacheSets []cacheSet `json:"cacheSets"`
}

type cacheSet struct {
	Name          string `json:"name"`
	Path          string `json:"path"`
	CacheStrategy string `json:"cacheStrategy"`
	MetaPolicy    string `json:"metaPolicy"`
	ReadPolicy    string `json:"readPolicy"`
	WritePolicy   string `json:"writePolicy"`
}
