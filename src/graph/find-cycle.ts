import { getDependencies } from "./build-graph.ts";
import type { Graph } from "./build-graph.ts";

/**
 * A dependency cycle, or null when the graph is acyclic. The cycle starts and ends at the first
 * stage in plan order that lies on a cycle and follows dependency edges, e.g.
 * `["stage-a", "stage-c", "stage-b", "stage-a"]` when a depends on c, c on b and b on a.
 */
export function findCycle(graph: Graph): string[] | null {
  const onCycle = findStagesOnCycles(graph);
  const start = graph.ids.find((id) => onCycle.has(id));
  if (start === undefined) return null;
  return tracePathBack(graph, start, onCycle);
}

/** Stages that can reach themselves: members of a strongly connected component with a cycle. */
function findStagesOnCycles(graph: Graph): Set<string> {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const result = new Set<string>();
  let counter = 0;

  for (const root of graph.ids) {
    if (index.has(root)) continue;
    // Iterative Tarjan: each frame remembers the next dependency to look at.
    const frames: { id: string; next: number }[] = [{ id: root, next: 0 }];
    index.set(root, counter);
    low.set(root, counter++);
    stack.push(root);
    onStack.add(root);
    while (frames.length > 0) {
      const frame = frames[frames.length - 1]!;
      const deps = getDependencies(graph, frame.id);
      if (frame.next < deps.length) {
        const dep = deps[frame.next++]!;
        if (!index.has(dep)) {
          index.set(dep, counter);
          low.set(dep, counter++);
          stack.push(dep);
          onStack.add(dep);
          frames.push({ id: dep, next: 0 });
        } else if (onStack.has(dep)) {
          low.set(frame.id, Math.min(low.get(frame.id)!, index.get(dep)!));
        }
        continue;
      }
      frames.pop();
      const parent = frames[frames.length - 1];
      if (parent) low.set(parent.id, Math.min(low.get(parent.id)!, low.get(frame.id)!));
      if (low.get(frame.id) !== index.get(frame.id)) continue;
      const component: string[] = [];
      let member: string | undefined;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== frame.id);
      const selfLoop = getDependencies(graph, frame.id).includes(frame.id);
      if (component.length > 1 || selfLoop) for (const id of component) result.add(id);
    }
  }
  return result;
}

/** Shortest path along dependency edges from `start` back to itself, staying on cycle stages. */
function tracePathBack(graph: Graph, start: string, allowed: ReadonlySet<string>): string[] {
  const previous = new Map<string, string>();
  const queue: string[] = [start];
  for (let head = 0; head < queue.length; head++) {
    const id = queue[head]!;
    for (const dep of getDependencies(graph, id)) {
      if (dep === start) return [...walkBack(previous, id, start), start];
      if (!allowed.has(dep) || previous.has(dep)) continue;
      previous.set(dep, id);
      queue.push(dep);
    }
  }
  return [start, start];
}

function walkBack(previous: ReadonlyMap<string, string>, end: string, start: string): string[] {
  const path = [end];
  let id = end;
  while (id !== start) {
    id = previous.get(id)!;
    path.push(id);
  }
  return path.reverse();
}
