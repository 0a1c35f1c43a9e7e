package play

import (
	"context"
	"fmt"
	"log"
	"sort"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"

	"dagadvisor/testbed/internal/plan"
)

// The annotations kwok's testbed stages read (testbed/kwok/pod-complete.yaml).
const (
	runForAnnotation  = "testbed.dagadvisor.io/run-for"
	outcomeAnnotation = "testbed.dagadvisor.io/outcome"
)

// taskState is what the player knows of one task of a run.
type taskState struct {
	spec     *plan.Task
	children []string
	created  bool
	pod      *corev1.Pod // as last seen
	// When the player saw the pod created, bound to a node and ended: the closed-loop tests'
	// realised waits and makespans, at the informer's resolution rather than the API's second.
	createdAt, boundAt, endedAt time.Time
}

func (t *taskState) phase() corev1.PodPhase {
	if t.pod == nil {
		return ""
	}
	return t.pod.Status.Phase
}

// runState is one run being played.
type runState struct {
	spec     *plan.Run
	tasks    map[string]*taskState
	order    []string // task ids in the plan's order
	started  time.Time
	ownerUID string // the engine object's uid, for its pods' owner references
	// storedSpec: the engine's definition of the run as it was when the run was submitted
	// (Argo: the WorkflowTemplate's spec, kept in the Workflow's status).
	storedSpec map[string]any
	finished   bool
	endedAt    time.Time
}

func newRunState(r *plan.Run) *runState {
	s := &runState{spec: r, tasks: map[string]*taskState{}}
	for i := range r.Tasks {
		t := &r.Tasks[i]
		s.tasks[t.ID] = &taskState{spec: t}
		s.order = append(s.order, t.ID)
	}
	for _, t := range r.Tasks {
		for _, parent := range t.Parents {
			s.tasks[parent].children = append(s.tasks[parent].children, t.ID)
		}
	}
	return s
}

// ready: not created yet, and every parent has succeeded.
func (s *runState) ready(id string) bool {
	t := s.tasks[id]
	if t.created {
		return false
	}
	for _, parent := range t.spec.Parents {
		if s.tasks[parent].phase() != corev1.PodSucceeded {
			return false
		}
	}
	return true
}

// outcome: "" while the run goes on, else Succeeded or Failed.
func (s *runState) outcome() corev1.PodPhase {
	for _, t := range s.tasks {
		if t.phase() == corev1.PodFailed {
			return corev1.PodFailed
		}
	}
	for _, t := range s.tasks {
		if t.phase() != corev1.PodSucceeded {
			return ""
		}
	}
	return corev1.PodSucceeded
}

// Player plays the runs of a plan in real time, from one goroutine: the pod informer, the
// arrival timers and the engines' reaction delays only send it events.
type Player struct {
	clients Clients
	engines map[string]Engine
	runs    []*runState
	byPod   map[string]*taskState // namespace/name → task
	runOf   map[*taskState]*runState
	events  chan func()
}

// NewPlayer prepares the runs of a plan.
func NewPlayer(clients Clients, p *plan.Plan) *Player {
	pl := &Player{clients: clients, engines: engines(clients), byPod: map[string]*taskState{},
		runOf: map[*taskState]*runState{}, events: make(chan func(), 1024)}
	for i := range p.Runs {
		s := newRunState(&p.Runs[i])
		pl.runs = append(pl.runs, s)
		for _, t := range s.tasks {
			pl.byPod[t.spec.Pod.Namespace+"/"+t.spec.Pod.Name] = t
			pl.runOf[t] = s
		}
	}
	return pl
}

// Play starts every run at its arrival (seconds after now) and returns when all have ended or
// ctx is done.
func (pl *Player) Play(ctx context.Context) error {
	factory := informers.NewSharedInformerFactory(pl.clients.Typed, 0)
	podInformer := factory.Core().V1().Pods().Informer()
	onPod := func(obj any) {
		if pod, ok := obj.(*corev1.Pod); ok {
			pl.send(func() { pl.podSeen(ctx, pod) })
		}
	}
	if _, err := podInformer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: onPod, UpdateFunc: func(_, obj any) { onPod(obj) }}); err != nil {
		return err
	}
	factory.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), podInformer.HasSynced) {
		return fmt.Errorf("pod informer did not sync")
	}
	for _, s := range pl.runs {
		if err := pl.engineOf(s).Prepare(ctx, s); err != nil {
			return fmt.Errorf("run %s: %w", s.spec.Name, err)
		}
	}
	for _, s := range pl.runs {
		s := s
		pl.after(seconds(s.spec.ArrivalSeconds), func() { pl.arrive(ctx, s) })
	}
	for !pl.allFinished() {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case event := <-pl.events:
			event()
		}
	}
	return nil
}

func (pl *Player) send(event func()) { pl.events <- event }

func (pl *Player) after(d time.Duration, event func()) {
	time.AfterFunc(d, func() { pl.send(event) })
}

func (pl *Player) allFinished() bool {
	for _, s := range pl.runs {
		if !s.finished {
			return false
		}
	}
	return true
}

func (pl *Player) engineOf(s *runState) Engine {
	if e, ok := pl.engines[s.spec.Engine]; ok {
		return e
	}
	return pl.engines[""]
}

func (pl *Player) arrive(ctx context.Context, s *runState) {
	s.started = time.Now()
	if err := pl.engineOf(s).Start(ctx, s); err != nil {
		log.Printf("run %s: %v", s.spec.Name, err)
	}
	pl.createReady(ctx, s)
}

// createReady creates, after the engine's reaction time, the pods of the tasks whose parents
// have all succeeded.
func (pl *Player) createReady(ctx context.Context, s *runState) {
	for _, id := range s.order {
		if !s.ready(id) {
			continue
		}
		t := s.tasks[id]
		t.created = true
		pl.after(seconds(s.spec.ReactionSeconds), func() { pl.createPod(ctx, s, t) })
	}
}

func (pl *Player) createPod(ctx context.Context, s *runState, t *taskState) {
	pod := t.spec.Pod.DeepCopy()
	if pod.Annotations == nil {
		pod.Annotations = map[string]string{}
	}
	pod.Annotations[runForAnnotation] = strconv.FormatFloat(t.spec.RunSeconds, 'f', 3, 64) + "s"
	pod.OwnerReferences = ownedBy(pod.OwnerReferences, s)
	if err := pl.engineOf(s).PreparePod(ctx, s, t, pod); err != nil {
		log.Printf("run %s: task %s: %v", s.spec.Name, t.spec.ID, err)
	}
	created, err := pl.clients.Typed.CoreV1().Pods(pod.Namespace).Create(ctx, pod, metav1.CreateOptions{})
	if err != nil {
		log.Printf("run %s: task %s: %v", s.spec.Name, t.spec.ID, err)
		return
	}
	t.pod, t.createdAt = created, time.Now()
	pl.update(ctx, s)
}

// ownedBy keeps the owner references whose owner the run's engine object is, with its uid; an
// owner the player does not create cannot be referenced (the API server needs its uid).
func ownedBy(refs []metav1.OwnerReference, s *runState) []metav1.OwnerReference {
	var kept []metav1.OwnerReference
	for _, ref := range refs {
		if s.ownerUID != "" && ref.Name == s.spec.Name {
			ref.UID = types.UID(s.ownerUID)
			kept = append(kept, ref)
		}
	}
	return kept
}

// podSeen records a task pod's new state; a change of phase or node moves its run on.
func (pl *Player) podSeen(ctx context.Context, pod *corev1.Pod) {
	t, ok := pl.byPod[pod.Namespace+"/"+pod.Name]
	if !ok {
		return
	}
	moved := t.pod == nil || t.pod.Status.Phase != pod.Status.Phase || t.pod.Spec.NodeName != pod.Spec.NodeName
	t.pod = pod
	if !moved {
		return
	}
	t.noteTimes(time.Now())
	s := pl.runOf[t]
	if pod.Status.Phase == corev1.PodSucceeded {
		pl.createReady(ctx, s)
	}
	s.finished = s.outcome() != ""
	if s.finished && s.endedAt.IsZero() {
		s.endedAt = time.Now()
	}
	pl.update(ctx, s)
}

// noteTimes records the first moment the pod was seen bound and ended.
func (t *taskState) noteTimes(now time.Time) {
	if t.boundAt.IsZero() && t.pod.Spec.NodeName != "" {
		t.boundAt = now
	}
	ended := t.pod.Status.Phase == corev1.PodSucceeded || t.pod.Status.Phase == corev1.PodFailed
	if t.endedAt.IsZero() && ended {
		t.endedAt = now
	}
}

func (pl *Player) update(ctx context.Context, s *runState) {
	if err := pl.engineOf(s).Update(ctx, s); err != nil {
		log.Printf("run %s: %v", s.spec.Name, err)
	}
}

// Summary is what happened to each run, for the tests: where and when each task ran.
func (pl *Player) Summary() []RunSummary {
	var out []RunSummary
	for _, s := range pl.runs {
		r := RunSummary{Name: s.spec.Name, Namespace: s.spec.Namespace, Outcome: string(s.outcome()),
			StartedAt: unixSeconds(s.started), EndedAt: unixSeconds(s.endedAt)}
		for _, id := range s.order {
			t := s.tasks[id]
			ts := TaskSummary{ID: id, CreatedAt: unixSeconds(t.createdAt), BoundAt: unixSeconds(t.boundAt),
				EndedAt: unixSeconds(t.endedAt)}
			if t.pod != nil {
				ts.Pod, ts.Node, ts.Phase = t.pod.Name, t.pod.Spec.NodeName, string(t.pod.Status.Phase)
			}
			r.Tasks = append(r.Tasks, ts)
		}
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// RunSummary is one run's outcome; times are Unix seconds, absent where it did not happen.
type RunSummary struct {
	Name      string        `json:"name"`
	Namespace string        `json:"namespace"`
	Outcome   string        `json:"outcome"`
	StartedAt float64       `json:"started_at,omitempty"`
	EndedAt   float64       `json:"ended_at,omitempty"`
	Tasks     []TaskSummary `json:"tasks"`
}

// TaskSummary is one task's pod, node, last phase and when the player saw it created, bound
// and ended.
type TaskSummary struct {
	ID        string  `json:"id"`
	Pod       string  `json:"pod,omitempty"`
	Node      string  `json:"node,omitempty"`
	Phase     string  `json:"phase,omitempty"`
	CreatedAt float64 `json:"created_at,omitempty"`
	BoundAt   float64 `json:"bound_at,omitempty"`
	EndedAt   float64 `json:"ended_at,omitempty"`
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

func unixSeconds(t time.Time) float64 {
	if t.IsZero() {
		return 0
	}
	return float64(t.UnixMicro()) / 1e6
}
