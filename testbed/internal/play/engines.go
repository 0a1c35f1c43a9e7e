package play

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/util/retry"
)

// Engine keeps a workflow engine's own object of a run, as that engine's controller would.
type Engine interface {
	// Prepare creates, once before any run, what the engine defines runs from.
	Prepare(ctx context.Context, s *runState) error
	// Start creates the run's object, if the engine has one, and records its uid in the run.
	Start(ctx context.Context, s *runState) error
	// Update writes the object's status from the run's tasks as they are now.
	Update(ctx context.Context, s *runState) error
	// PreparePod writes into a task's pod what the engine's definitions say of it now.
	PreparePod(ctx context.Context, s *runState, t *taskState, pod *corev1.Pod) error
}

func engines(clients Clients) map[string]Engine {
	return map[string]Engine{"": podsOnly{}, "argo": argo{clients},
		"tekton": &tekton{clients: clients, written: map[*taskState]string{}}}
}

// podsOnly is an engine whose runs are known from their pods alone (the seed convention,
// Airflow's pods; Airflow's own records live in its API, not in Kubernetes).
type podsOnly struct{}

func (podsOnly) Prepare(context.Context, *runState) error { return nil }
func (podsOnly) Start(context.Context, *runState) error   { return nil }
func (podsOnly) Update(context.Context, *runState) error  { return nil }
func (podsOnly) PreparePod(context.Context, *runState, *taskState, *corev1.Pod) error {
	return nil
}

var workflowResource = schema.GroupVersionResource{Group: "argoproj.io", Version: "v1alpha1", Resource: "workflows"}

// argo keeps a Workflow whose status.nodes is the DAG as Argo's controller records it: a DAG node
// named after the workflow, and a Pod node per task created so far, its children the nodes of
// the tasks created after it.
type argo struct{ clients Clients }

func (a argo) Prepare(ctx context.Context, s *runState) error {
	return a.createWorkflowTemplate(ctx, s)
}

func (a argo) Start(ctx context.Context, s *runState) error {
	stored, err := a.storedTemplateSpec(ctx, s)
	if err != nil {
		return fmt.Errorf("WorkflowTemplate: %w", err)
	}
	s.storedSpec = stored
	wf := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "argoproj.io/v1alpha1",
		"kind":       "Workflow",
		"metadata": map[string]any{
			"name": s.spec.Name, "namespace": s.spec.Namespace,
			"labels": map[string]any{"workflows.argoproj.io/completed": "false",
				"workflows.argoproj.io/phase": "Running"},
		},
		"spec": map[string]any{"workflowTemplateRef": map[string]any{"name": argoName(s.spec.Workflow)}},
	}}
	created, err := a.clients.Dynamic.Resource(workflowResource).Namespace(s.spec.Namespace).
		Create(ctx, wf, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("create Workflow: %w", err)
	}
	s.ownerUID = string(created.GetUID())
	return a.Update(ctx, s)
}

func (a argo) PreparePod(ctx context.Context, s *runState, t *taskState, pod *corev1.Pod) error {
	wf, err := a.clients.Dynamic.Resource(workflowResource).Namespace(s.spec.Namespace).
		Get(ctx, s.spec.Name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	spec, _, _ := unstructured.NestedMap(wf.Object, "spec")
	return podFields(spec, s.storedSpec, argoName(t.spec.ID), pod)
}

func (a argo) Update(ctx context.Context, s *runState) error {
	client := a.clients.Dynamic.Resource(workflowResource).Namespace(s.spec.Namespace)
	return rewrite(ctx, client, s.spec.Name, false, func(wf *unstructured.Unstructured) {
		phase := argoPhase(s.outcome(), true)
		completed := "false"
		if s.finished {
			completed = "true"
		}
		labels := wf.GetLabels()
		labels["workflows.argoproj.io/phase"] = phase
		labels["workflows.argoproj.io/completed"] = completed
		wf.SetLabels(labels)
		wf.Object["status"] = argoStatus(s, phase)
	})
}

// rewrite reads an object, changes it and writes it back, again after a conflict; an object gone
// meanwhile is not an error. viaStatus writes through the status subresource (where the CRD has
// one, only that path changes the status).
func rewrite(ctx context.Context, client dynamic.ResourceInterface, name string, viaStatus bool,
	change func(*unstructured.Unstructured)) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		object, err := client.Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return err
		}
		change(object)
		if viaStatus {
			_, err = client.UpdateStatus(ctx, object, metav1.UpdateOptions{})
		} else {
			_, err = client.Update(ctx, object, metav1.UpdateOptions{})
		}
		return err
	})
}

func argoStatus(s *runState, phase string) map[string]any {
	nodes := map[string]any{}
	var roots []any
	for _, id := range s.order {
		t := s.tasks[id]
		if t.pod == nil {
			continue
		}
		if len(t.spec.Parents) == 0 {
			roots = append(roots, argoNodeID(t))
		}
		nodes[argoNodeID(t)] = argoTaskNode(s, t)
	}
	root := map[string]any{"id": s.spec.Name, "name": s.spec.Name, "displayName": s.spec.Name,
		"type": "DAG", "phase": phase, "templateName": "main", "children": roots,
		"startedAt": timestamp(s.started)}
	status := map[string]any{"phase": phase, "startedAt": timestamp(s.started), "nodes": nodes,
		"storedWorkflowTemplateSpec": s.storedSpec}
	if s.finished {
		root["finishedAt"] = timestamp(time.Now())
		status["finishedAt"] = root["finishedAt"]
	}
	nodes[s.spec.Name] = root
	return status
}

func argoTaskNode(s *runState, t *taskState) map[string]any {
	var children []any
	for _, child := range t.children {
		if c := s.tasks[child]; c.pod != nil {
			children = append(children, argoNodeID(c))
		}
	}
	node := map[string]any{
		"id": argoNodeID(t), "name": t.pod.Annotations["workflows.argoproj.io/node-name"],
		"displayName": t.spec.ID, "type": "Pod", "templateName": argoName(t.spec.ID),
		"boundaryID": s.spec.Name, "phase": argoPhase(t.phase(), false),
		"startedAt": timestamp(t.pod.CreationTimestamp.Time), "hostNodeName": t.pod.Spec.NodeName,
	}
	if len(children) > 0 {
		node["children"] = children
	}
	if end := finishedAt(t.pod); !end.IsZero() {
		node["finishedAt"] = timestamp(end)
	}
	return node
}

func argoNodeID(t *taskState) string {
	return t.pod.Annotations["workflows.argoproj.io/node-id"]
}

// argoPhase: Argo's phase of a node (or of the workflow, whose "not yet" is Running).
func argoPhase(p corev1.PodPhase, workflow bool) string {
	switch p {
	case corev1.PodSucceeded, corev1.PodFailed, corev1.PodRunning:
		return string(p)
	case "":
		if workflow {
			return "Running"
		}
	}
	return "Pending"
}

func finishedAt(pod *corev1.Pod) time.Time {
	var end time.Time
	for _, c := range pod.Status.ContainerStatuses {
		if c.State.Terminated != nil && c.State.Terminated.FinishedAt.After(end) {
			end = c.State.Terminated.FinishedAt.Time
		}
	}
	return end
}

func timestamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }
