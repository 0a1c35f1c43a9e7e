// Package plan reads what `dagadvisor-sim plan` writes: a scenario as the objects a real cluster
// starts with and the workflow runs to play on it (config/scenarios/README.md, "plan.json").
package plan

import (
	"encoding/json"
	"fmt"
	"os"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Plan is a scenario ready to be played on a cluster.
type Plan struct {
	Scenario  string                      `json:"scenario"`
	Seed      uint64                      `json:"seed"`
	TimeScale float64                     `json:"time_scale"`
	Objects   []unstructured.Unstructured `json:"objects"`
	Runs      []Run                       `json:"runs"`
}

// Run is one workflow run: its tasks' pods are created as their parents succeed.
type Run struct {
	Name            string  `json:"name"`
	Namespace       string  `json:"namespace"`
	Engine          string  `json:"engine"`
	Workflow        string  `json:"workflow"`
	ArrivalSeconds  float64 `json:"arrival_seconds"`
	ReactionSeconds float64 `json:"reaction_seconds"`
	Tasks           []Task  `json:"tasks"`
}

// Task is one task of a run and the pod the engine creates for it.
type Task struct {
	ID         string     `json:"id"`
	Parents    []string   `json:"parents"`
	RunSeconds float64    `json:"run_seconds"`
	OutputGB   float64    `json:"output_gb"`
	Pod        corev1.Pod `json:"pod"`
}

// Load reads and checks a plan file.
func Load(path string) (*Plan, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var p Plan
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := p.check(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &p, nil
}

func (p *Plan) check() error {
	for i, r := range p.Runs {
		ids := map[string]bool{}
		for _, t := range r.Tasks {
			ids[t.ID] = true
		}
		for _, t := range r.Tasks {
			if t.Pod.Name == "" {
				return fmt.Errorf("runs[%d] (%s): task %q has no pod name", i, r.Name, t.ID)
			}
			for _, parent := range t.Parents {
				if !ids[parent] {
					return fmt.Errorf("runs[%d] (%s): task %q has unknown parent %q", i, r.Name, t.ID, parent)
				}
			}
		}
	}
	return nil
}
