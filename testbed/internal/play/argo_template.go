package play

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

var workflowTemplateResource = schema.GroupVersionResource{
	Group: "argoproj.io", Version: "v1alpha1", Resource: "workflowtemplates"}

// argoName: Argo's names (a WorkflowTemplate, a template) cannot hold '_'.
func argoName(name string) string { return strings.ReplaceAll(name, "_", "-") }

// createWorkflowTemplate creates the WorkflowTemplate a DAG's runs are submitted from: a DAG
// entrypoint and one container template per task, so that a change written where Argo defines
// the pods (spec.tolerations for every step, templates[].tolerations for one) reaches the pods
// of the runs submitted after it.
func (a argo) createWorkflowTemplate(ctx context.Context, s *runState) error {
	var tasks, templates []any
	for _, id := range s.order {
		t := s.tasks[id]
		var deps []any
		for _, p := range t.spec.Parents {
			deps = append(deps, argoName(p))
		}
		tasks = append(tasks, map[string]any{"name": argoName(id), "template": argoName(id), "dependencies": deps})
		templates = append(templates, map[string]any{"name": argoName(id),
			"container": map[string]any{"name": "main", "image": "registry.k8s.io/pause:3.10"}})
	}
	templates = append(templates, map[string]any{"name": "main", "dag": map[string]any{"tasks": tasks}})
	wft := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "argoproj.io/v1alpha1", "kind": "WorkflowTemplate",
		"metadata": map[string]any{"name": argoName(s.spec.Workflow), "namespace": s.spec.Namespace},
		"spec":     map[string]any{"entrypoint": "main", "templates": templates},
	}}
	_, err := a.clients.Dynamic.Resource(workflowTemplateResource).Namespace(s.spec.Namespace).
		Create(ctx, wft, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	return err
}

// storedTemplateSpec reads the WorkflowTemplate's spec as it is when a run is submitted: Argo
// keeps it in the Workflow's status.storedWorkflowTemplateSpec, so a later change to the
// template reaches only the runs submitted after it.
func (a argo) storedTemplateSpec(ctx context.Context, s *runState) (map[string]any, error) {
	wft, err := a.clients.Dynamic.Resource(workflowTemplateResource).Namespace(s.spec.Namespace).
		Get(ctx, argoName(s.spec.Workflow), metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	spec, _, _ := unstructured.NestedMap(wft.Object, "spec")
	return spec, nil
}

// podFields is what Argo's controller writes into a step's pod from its workflow: the step
// template's own tolerations, affinity and priority class, else the workflow-wide ones (the
// Workflow's spec over its stored template's), and both node selectors merged.
func podFields(workflowSpec, stored map[string]any, step string, pod *corev1.Pod) error {
	template := stepTemplate(stored, step)
	wide := func(field string) any {
		if v, ok := workflowSpec[field]; ok {
			return v
		}
		return stored[field]
	}
	if err := setField(&pod.Spec.Tolerations, template["tolerations"], wide("tolerations")); err != nil {
		return fmt.Errorf("tolerations: %w", err)
	}
	if err := setField(&pod.Spec.Affinity, template["affinity"], wide("affinity")); err != nil {
		return fmt.Errorf("affinity: %w", err)
	}
	if err := setField(&pod.Spec.PriorityClassName, template["priorityClassName"], wide("podPriorityClassName")); err != nil {
		return fmt.Errorf("priorityClassName: %w", err)
	}
	for _, selector := range []any{wide("nodeSelector"), template["nodeSelector"]} {
		var labels map[string]string
		if err := convert(selector, &labels); err != nil {
			return fmt.Errorf("nodeSelector: %w", err)
		}
		for k, v := range labels {
			if pod.Spec.NodeSelector == nil {
				pod.Spec.NodeSelector = map[string]string{}
			}
			pod.Spec.NodeSelector[k] = v
		}
	}
	return nil
}

func stepTemplate(spec map[string]any, step string) map[string]any {
	templates, _ := spec["templates"].([]any)
	for _, t := range templates {
		if m, ok := t.(map[string]any); ok && m["name"] == step {
			return m
		}
	}
	return map[string]any{}
}

// setField sets *out from the first of the values that is present.
func setField[T any](out *T, values ...any) error {
	for _, v := range values {
		if v != nil {
			return convert(v, out)
		}
	}
	return nil
}

func convert(in any, out any) error {
	if in == nil {
		return nil
	}
	data, err := json.Marshal(in)
	if err != nil {
		return err
	}
	return json.Unmarshal(data, out)
}
