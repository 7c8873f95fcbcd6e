package k8s

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	"github.com/sharebench/sharebench/campaign/shard"
	"github.com/sharebench/sharebench/internal/redact"
)

// Paths inside the agent's pod. The scenario ConfigMap and the connection
// Secret are mounted read-only; AgentArgs.ScenarioFile and ConnectionFile
// are set to these paths by Render.
const (
	ScenarioDir    = "/etc/sharebench/scenario"
	ScenarioKey    = "scenario.yaml"
	ScenarioPath   = ScenarioDir + "/" + ScenarioKey
	ConnectionDir  = "/etc/sharebench/connection"
	ConnectionKey  = "connection.yaml"
	ConnectionPath = ConnectionDir + "/" + ConnectionKey
	// ContainerName is the agent's container in every pod.
	ContainerName = "agent"
	// AgentUID is the non-root user the agent runs as (the image's
	// /etc/passwd has it as "sharebench").
	AgentUID = 65532
)

// Labels every object carries; LabelInstance selects one campaign's
// objects and pods.
const (
	LabelName      = "app.kubernetes.io/name"
	LabelComponent = "app.kubernetes.io/component"
	LabelInstance  = "app.kubernetes.io/instance"
	LabelManagedBy = "app.kubernetes.io/managed-by"
	LabelCampaign  = "sharebench.io/campaign"
	// CompletionIndexAnnotation is set by the Job controller on every pod
	// of an Indexed Job: the pod's completion index, our shard index.
	CompletionIndexAnnotation = batchv1.JobCompletionIndexAnnotation
)

// maxNameLen keeps every derived object name (longest suffix
// "-connection") and every pod host name (<job>-<index>) within the
// 63-character DNS label limit.
const maxNameLen = 63 - len("-connection")

// Defaults of Params.
const (
	DefaultActiveDeadline = 6 * time.Hour
	DefaultTTLAfterFinish = time.Hour
	DefaultGracePeriod    = 15 * time.Second
)

// Resources are the agent container's requests and limits as Kubernetes
// quantities ("500m", "1Gi"); empty fields are left out.
type Resources struct {
	CPURequest, CPULimit, MemoryRequest, MemoryLimit string
}

// Params describe one campaign's agents on Kubernetes.
type Params struct {
	// Name names every object (the Job, <Name>-scenario, <Name>-connection,
	// <Name>-agent): a DNS-1123 label of at most 52 characters.
	Name string
	// Namespace of every object; empty leaves it out (kubectl apply -n).
	Namespace string
	// Image is the agent image (make agent-image); its entry point is the
	// sharebench binary.
	Image string
	// Shards is the number of agents: completions and parallelism of the
	// Indexed Job.
	Shards int
	// AgentArgs are the agents' arguments; Render sets Shards, ScenarioFile
	// and ConnectionFile to this Params' values and mount paths.
	AgentArgs shard.AgentArgs
	// ScenarioYAML is the scenario as the agents read it (required).
	ScenarioYAML []byte
	// ConnectionYAML, when set, is the connection file (TLS, SASL); it goes
	// into a Secret, never the ConfigMap.
	ConnectionYAML []byte
	// Resources of the agent container (optional).
	Resources Resources
	// Labels are added to every object and pod.
	Labels map[string]string
	// ActiveDeadline bounds the Job's run time (default 6h); TTLAfterFinish
	// is how long a finished Job stays before Kubernetes deletes it (default
	// 1h), so objects do not outlive a coordinator that died.
	ActiveDeadline, TTLAfterFinish time.Duration
}

// Objects are the rendered objects, in the order they are created.
type Objects struct {
	ServiceAccount *corev1.ServiceAccount
	ConfigMap      *corev1.ConfigMap
	// Secret is nil without a connection file.
	Secret *corev1.Secret
	Job    *batchv1.Job
}

// List returns the objects in creation order (the Job last).
func (o Objects) List() []runtime.Object {
	out := []runtime.Object{o.ServiceAccount, o.ConfigMap}
	if o.Secret != nil {
		out = append(out, o.Secret)
	}
	return append(out, o.Job)
}

// YAML writes the objects as one multi-document YAML stream.
func (o Objects) YAML() ([]byte, error) {
	var b bytes.Buffer
	for i, obj := range o.List() {
		y, err := yaml.Marshal(obj)
		if err != nil {
			return nil, fmt.Errorf("k8s: encode %T: %w", obj, err)
		}
		if i > 0 {
			b.WriteString("---\n")
		}
		b.Write(y)
	}
	return b.Bytes(), nil
}

// Selector is the label selector of one campaign's objects and pods.
func Selector(name string) string {
	return LabelInstance + "=" + name + "," + LabelManagedBy + "=sharebench"
}

// Validate checks the parameters; each error names the flag that sets the
// value and what is expected.
func (p Params) Validate() error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	switch {
	case p.Name == "":
		bad("--name: empty; expected a lowercase DNS-1123 label of at most %d characters", maxNameLen)
	case len(p.Name) > maxNameLen:
		bad("--name %q: %d characters; expected at most %d (object names add up to 11)", p.Name, len(p.Name), maxNameLen)
	default:
		for _, m := range validation.IsDNS1123Label(p.Name) {
			bad("--name %q: %s", p.Name, m)
		}
	}
	if p.Namespace != "" {
		for _, m := range validation.IsDNS1123Label(p.Namespace) {
			bad("--namespace %q: %s", p.Namespace, m)
		}
	}
	if strings.TrimSpace(p.Image) == "" {
		bad("--image: empty; expected the agent image (build it with make agent-image and push it where the cluster pulls from)")
	} else if strings.ContainsAny(p.Image, " \t\n") {
		bad("--image %q: contains white space; expected an image reference such as registry.example/sharebench-agent:v1", p.Image)
	}
	if p.Shards < 1 {
		bad("--shards %d: expected at least 1 agent", p.Shards)
	}
	if len(p.ScenarioYAML) == 0 {
		bad("--scenario: no scenario text; the agents need the scenario")
	}
	if len(p.AgentArgs.Bootstrap) == 0 {
		bad("--bootstrap: empty; expected the Kafka bootstrap addresses as the pods reach them (host:port,...)")
	}
	for _, a := range p.AgentArgs.Bootstrap {
		if err := shard.CheckBootstrap(a); err != nil {
			errs = append(errs, err)
		}
	}
	if p.AgentArgs.ControlTopic == "" || p.AgentArgs.ResultsTopic == "" {
		bad("--control-topic/--results-topic: empty; the agents need both topic names")
	}
	for _, l := range slices.Sorted(maps.Keys(p.Labels)) {
		for _, m := range validation.IsQualifiedName(l) {
			bad("--label %s: key: %s", l, m)
		}
		for _, m := range validation.IsValidLabelValue(p.Labels[l]) {
			bad("--label %s=%s: value: %s", l, p.Labels[l], m)
		}
	}
	for _, q := range []struct{ flag, v string }{
		{"--cpu-request", p.Resources.CPURequest}, {"--cpu-limit", p.Resources.CPULimit},
		{"--memory-request", p.Resources.MemoryRequest}, {"--memory-limit", p.Resources.MemoryLimit},
	} {
		if q.v == "" {
			continue
		}
		if v, err := resource.ParseQuantity(q.v); err != nil {
			bad("%s %q: expected a Kubernetes quantity such as 500m, 2 or 1Gi: %v", q.flag, q.v, err)
		} else if v.Sign() <= 0 {
			bad("%s %q: expected a positive quantity", q.flag, q.v)
		}
	}
	if p.ActiveDeadline < 0 || p.ActiveDeadline > 0 && p.ActiveDeadline < time.Second {
		bad("--active-deadline %s: expected at least 1s (0: the default %s)", p.ActiveDeadline, DefaultActiveDeadline)
	}
	if p.TTLAfterFinish < 0 {
		bad("--ttl-after-finished %s: expected 0 (the default %s) or more", p.TTLAfterFinish, DefaultTTLAfterFinish)
	}
	return errors.Join(errs...)
}

// Render builds the objects of p after validating it.
func Render(p Params) (Objects, error) {
	if err := p.Validate(); err != nil {
		return Objects{}, fmt.Errorf("k8s: %w", err)
	}
	if p.ActiveDeadline == 0 {
		p.ActiveDeadline = DefaultActiveDeadline
	}
	if p.TTLAfterFinish == 0 {
		p.TTLAfterFinish = DefaultTTLAfterFinish
	}
	labels := map[string]string{}
	maps.Copy(labels, p.Labels)
	labels[LabelName] = "sharebench"
	labels[LabelComponent] = "agent"
	labels[LabelInstance] = p.Name
	labels[LabelManagedBy] = "sharebench"
	if c := labelValue(p.AgentArgs.Campaign); c != "" {
		labels[LabelCampaign] = c
	}
	meta := func(name string) metav1.ObjectMeta {
		return metav1.ObjectMeta{Name: name, Namespace: p.Namespace, Labels: maps.Clone(labels)}
	}

	args := p.AgentArgs
	args.Shards = p.Shards
	args.ScenarioFile = ScenarioPath
	args.ConnectionFile = ""
	if len(p.ConnectionYAML) > 0 {
		args.ConnectionFile = ConnectionPath
	}

	var o Objects
	o.ServiceAccount = &corev1.ServiceAccount{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ServiceAccount"},
		ObjectMeta: meta(p.Name + "-agent"),
		// Agents talk to Kafka only; they never call the Kubernetes API.
		AutomountServiceAccountToken: ptr.To(false),
	}
	o.ConfigMap = &corev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: meta(p.Name + "-scenario"),
		// Masked: a ConfigMap is readable by anyone who may list the
		// namespace's objects; the agents hash the masked text
		// (campaign.ScenarioHash) and never need the brokers' own settings.
		Data:      map[string]string{ScenarioKey: string(redact.Bytes(p.ScenarioYAML))},
		Immutable: ptr.To(true),
	}
	volumes := []corev1.Volume{
		{Name: "scenario", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
			LocalObjectReference: corev1.LocalObjectReference{Name: o.ConfigMap.Name},
			Items:                []corev1.KeyToPath{{Key: ScenarioKey, Path: ScenarioKey}},
			DefaultMode:          ptr.To[int32](0o444),
		}}},
		{Name: "tmp", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
	}
	mounts := []corev1.VolumeMount{
		{Name: "scenario", MountPath: ScenarioDir, ReadOnly: true},
		{Name: "tmp", MountPath: "/tmp"},
	}
	if len(p.ConnectionYAML) > 0 {
		o.Secret = &corev1.Secret{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
			ObjectMeta: meta(p.Name + "-connection"),
			Type:       corev1.SecretTypeOpaque,
			Data:       map[string][]byte{ConnectionKey: p.ConnectionYAML},
			Immutable:  ptr.To(true),
		}
		volumes = append(volumes, corev1.Volume{Name: "connection", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{
			SecretName:  o.Secret.Name,
			Items:       []corev1.KeyToPath{{Key: ConnectionKey, Path: ConnectionKey}},
			DefaultMode: ptr.To[int32](0o440),
		}}})
		mounts = append(mounts, corev1.VolumeMount{Name: "connection", MountPath: ConnectionDir, ReadOnly: true})
	}

	res := corev1.ResourceRequirements{}
	for _, q := range []struct {
		v    string
		list *corev1.ResourceList
		name corev1.ResourceName
	}{
		{p.Resources.CPURequest, &res.Requests, corev1.ResourceCPU}, {p.Resources.MemoryRequest, &res.Requests, corev1.ResourceMemory},
		{p.Resources.CPULimit, &res.Limits, corev1.ResourceCPU}, {p.Resources.MemoryLimit, &res.Limits, corev1.ResourceMemory},
	} {
		if q.v == "" {
			continue
		}
		if *q.list == nil {
			*q.list = corev1.ResourceList{}
		}
		(*q.list)[q.name] = resource.MustParse(q.v) // validated above
	}

	podLabels := maps.Clone(labels)
	o.Job = &batchv1.Job{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: meta(p.Name),
		Spec: batchv1.JobSpec{
			CompletionMode: ptr.To(batchv1.IndexedCompletion),
			Completions:    ptr.To(int32(p.Shards)),
			Parallelism:    ptr.To(int32(p.Shards)),
			// A shard that fails fails the run: no silent retry, which
			// would join a new agent halfway through the measurement.
			BackoffLimit:            ptr.To[int32](0),
			ActiveDeadlineSeconds:   ptr.To(int64(p.ActiveDeadline / time.Second)),
			TTLSecondsAfterFinished: ptr.To(int32(p.TTLAfterFinish / time.Second)),
			PodFailurePolicy: &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{{
				// Any agent exiting non-zero ends the Job at once (the other
				// agents are stopped by the Job controller too).
				Action: batchv1.PodFailurePolicyActionFailJob,
				OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{
					ContainerName: ptr.To(ContainerName),
					Operator:      batchv1.PodFailurePolicyOnExitCodesOpNotIn,
					Values:        []int32{0},
				},
			}}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: podLabels},
				Spec: corev1.PodSpec{
					ServiceAccountName:            o.ServiceAccount.Name,
					AutomountServiceAccountToken:  ptr.To(false),
					RestartPolicy:                 corev1.RestartPolicyNever,
					TerminationGracePeriodSeconds: ptr.To(int64(DefaultGracePeriod / time.Second)),
					EnableServiceLinks:            ptr.To(false),
					SecurityContext: &corev1.PodSecurityContext{
						RunAsNonRoot:   ptr.To(true),
						RunAsUser:      ptr.To[int64](AgentUID),
						RunAsGroup:     ptr.To[int64](AgentUID),
						FSGroup:        ptr.To[int64](AgentUID),
						SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
					},
					// Spread the agents over nodes where the cluster allows
					// it: one host's NIC and cores are what sharding is for.
					TopologySpreadConstraints: []corev1.TopologySpreadConstraint{{
						MaxSkew:           1,
						TopologyKey:       corev1.LabelHostname,
						WhenUnsatisfiable: corev1.ScheduleAnyway,
						LabelSelector:     &metav1.LabelSelector{MatchLabels: map[string]string{LabelInstance: p.Name}},
					}},
					Volumes: volumes,
					Containers: []corev1.Container{{
						Name:            ContainerName,
						Image:           p.Image,
						ImagePullPolicy: corev1.PullIfNotPresent,
						// The image's entry point is /sharebench; without
						// --shard the agent reads $JOB_COMPLETION_INDEX.
						Args: args.Argv(-1),
						Env: []corev1.EnvVar{
							{Name: "POD_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}},
							{Name: "NODE_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "spec.nodeName"}}},
							{Name: "HOME", Value: "/tmp"},
							{Name: "TMPDIR", Value: "/tmp"},
						},
						Resources:                res,
						VolumeMounts:             mounts,
						TerminationMessagePolicy: corev1.TerminationMessageFallbackToLogsOnError,
						SecurityContext: &corev1.SecurityContext{
							RunAsNonRoot:             ptr.To(true),
							ReadOnlyRootFilesystem:   ptr.To(true),
							AllowPrivilegeEscalation: ptr.To(false),
							Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
						},
					}},
				},
			},
		},
	}
	return o, nil
}

// labelValue turns a campaign name into a valid label value (empty when
// nothing of it is left).
func labelValue(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			b[i] = '-'
		}
	}
	out := string(b)
	if len(out) > validation.LabelValueMaxLength {
		out = out[:validation.LabelValueMaxLength]
	}
	return strings.Trim(out, "-_.")
}

// NameFor derives an object name from a campaign name: lowercased, other
// characters turned into '-', "sharebench-" in front, cut to leave room for
// suffix (a random tail that keeps two runs of one campaign apart; may be
// empty).
func NameFor(campaign, suffix string) string {
	b := []byte(strings.ToLower(campaign))
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			b[i] = '-'
		}
	}
	base := "sharebench"
	if s := strings.Trim(string(b), "-"); s != "" && s != "sharebench" {
		base += "-" + strings.TrimPrefix(s, "sharebench-")
	}
	limit := maxNameLen
	if suffix != "" {
		limit -= len(suffix) + 1
	}
	if len(base) > limit {
		base = base[:limit]
	}
	base = strings.TrimRight(base, "-")
	for strings.Contains(base, "--") {
		base = strings.ReplaceAll(base, "--", "-")
	}
	if suffix != "" {
		base += "-" + suffix
	}
	return base
}
