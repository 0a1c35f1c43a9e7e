package play

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
)

const tektonAPIVersion = "tekton.dev/v1"

var (
	pipelineRunResource = schema.GroupVersionResource{Group: "tekton.dev", Version: "v1", Resource: "pipelineruns"}
	taskRunResource     = schema.GroupVersionResource{Group: "tekton.dev", Version: "v1", Resource: "taskruns"}
)

// tekton keeps a PipelineRun and a TaskRun per task as Tekton's controller does: the PipelineRun
// carries its resolved pipeline in status.pipelineSpec and names its TaskRuns in
// status.childReferences; each TaskRun owns its task's pod and records the task's start, end and
// outcome. Both are written through their status subresource, as the controller writes them.
type tekton struct {
	clients Clients
	written map[*taskState]string // the TaskRun status last written, so unchanged ones are not
}

func (k *tekton) Prepare(context.Context, *runState) error { return nil }

func (k *tekton) Start(ctx context.Context, s *runState) error {
	run := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": tektonAPIVersion,
		"kind":       "PipelineRun",
		"metadata": map[string]any{"name": s.spec.Name, "namespace": s.spec.Namespace,
			"labels": map[string]any{"tekton.dev/pipeline": s.spec.Workflow}},
		"spec": map[string]any{"pipelineSpec": tektonPipelineSpec(s)},
	}}
	created, err := k.clients.Dynamic.Resource(pipelineRunResource).Namespace(s.spec.Namespace).
		Create(ctx, run, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("create PipelineRun: %w", err)
	}
	s.ownerUID = string(created.GetUID())
	return k.Update(ctx, s)
}

// PreparePod creates the task's TaskRun, owned by the PipelineRun, and makes it the pod's owner.
func (k *tekton) PreparePod(ctx context.Context, s *runState, t *taskState, pod *corev1.Pod) error {
	name := pod.Labels["tekton.dev/taskRun"]
	taskRun := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": tektonAPIVersion,
		"kind":       "TaskRun",
		"metadata": map[string]any{
			"name": name, "namespace": s.spec.Namespace,
			"labels": map[string]any{"tekton.dev/pipelineRun": s.spec.Name,
				"tekton.dev/pipelineTask": t.spec.ID, "tekton.dev/pipeline": s.spec.Workflow,
				"tekton.dev/memberOf": "tasks"},
			"ownerReferences": []any{map[string]any{"apiVersion": tektonAPIVersion,
				"kind": "PipelineRun", "name": s.spec.Name, "uid": s.ownerUID, "controller": true}},
		},
		"spec": map[string]any{"taskSpec": tektonTaskSpec()},
	}}
	created, err := k.clients.Dynamic.Resource(taskRunResource).Namespace(s.spec.Namespace).
		Create(ctx, taskRun, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("create TaskRun: %w", err)
	}
	pod.Labels["tekton.dev/pipelineRunUID"] = s.ownerUID
	controller := true
	pod.OwnerReferences = []metav1.OwnerReference{{APIVersion: tektonAPIVersion, Kind: "TaskRun",
		Name: name, UID: types.UID(created.GetUID()), Controller: &controller}}
	return nil
}

func (k *tekton) Update(ctx context.Context, s *runState) error {
	for _, id := range s.order {
		if t := s.tasks[id]; t.pod != nil {
			if err := k.updateTaskRun(ctx, s, t); err != nil {
				return err
			}
		}
	}
	status := map[string]any{
		"startTime":       timestamp(s.started),
		"pipelineSpec":    tektonPipelineSpec(s),
		"childReferences": tektonChildren(s),
		"conditions":      tektonConditions(s.outcome(), true),
	}
	if s.finished {
		status["completionTime"] = timestamp(time.Now())
	}
	return writeStatus(ctx, k.clients.Dynamic.Resource(pipelineRunResource).Namespace(s.spec.Namespace),
		s.spec.Name, status)
}

func (k *tekton) updateTaskRun(ctx context.Context, s *runState, t *taskState) error {
	status := map[string]any{
		"podName":   t.pod.Name,
		"startTime": timestamp(t.pod.CreationTimestamp.Time),
	}
	if end := finishedAt(t.pod); !end.IsZero() {
		status["completionTime"] = timestamp(end)
	}
	key := fmt.Sprint(t.phase(), status)
	if k.written[t] == key {
		return nil
	}
	k.written[t] = key
	status["conditions"] = tektonConditions(t.phase(), false)
	name := t.pod.Labels["tekton.dev/taskRun"]
	return writeStatus(ctx, k.clients.Dynamic.Resource(taskRunResource).Namespace(s.spec.Namespace),
		name, status)
}

// writeStatus replaces an object's status through its status subresource.
func writeStatus(ctx context.Context, client dynamic.ResourceInterface, name string, status map[string]any) error {
	return rewrite(ctx, client, name, true, func(object *unstructured.Unstructured) {
		object.Object["status"] = status
	})
}

// tektonPipelineSpec: a pipeline task per task of the run, after its parents.
func tektonPipelineSpec(s *runState) map[string]any {
	var tasks []any
	for _, id := range s.order {
		task := map[string]any{"name": id, "taskSpec": tektonTaskSpec()}
		if parents := s.tasks[id].spec.Parents; len(parents) > 0 {
			var after []any
			for _, p := range parents {
				after = append(after, p)
			}
			task["runAfter"] = after
		}
		tasks = append(tasks, task)
	}
	return map[string]any{"tasks": tasks}
}

func tektonTaskSpec() map[string]any {
	return map[string]any{"steps": []any{map[string]any{"name": "main", "image": "registry.k8s.io/pause:3.10"}}}
}

func tektonChildren(s *runState) []any {
	var children []any
	for _, id := range s.order {
		if t := s.tasks[id]; t.pod != nil {
			children = append(children, map[string]any{"apiVersion": tektonAPIVersion, "kind": "TaskRun",
				"name": t.pod.Labels["tekton.dev/taskRun"], "pipelineTaskName": id})
		}
	}
	return children
}

// tektonConditions: the Succeeded condition Tekton's runs carry (Unknown while they go on).
func tektonConditions(phase corev1.PodPhase, pipeline bool) []any {
	status, reason := "Unknown", "Running"
	switch phase {
	case corev1.PodSucceeded:
		status, reason = "True", "Succeeded"
	case corev1.PodFailed:
		status, reason = "False", "Failed"
	case corev1.PodPending:
		if !pipeline {
			reason = "Pending"
		}
	}
	return []any{map[string]any{"type": "Succeeded", "status": status, "reason": reason,
		"lastTransitionTime": timestamp(time.Now())}}
}
