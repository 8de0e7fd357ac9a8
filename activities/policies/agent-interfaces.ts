import { AgentInterfaceNames, type AgentInterface, type AgentInterfaceName } from '../../shared/agent-interface';
import { compactActions } from '../../shared/compact-actions';

const interfaces: Record<AgentInterfaceName, AgentInterface> = { 'compact-actions': compactActions };

/** The agent interface of a name; an unknown name throws with the list of known ones. */
export function agentInterface(name: string): AgentInterface {
  const found = (interfaces as Record<string, AgentInterface | undefined>)[name];
  if (!found) throw new Error(`unknown agent interface ${JSON.stringify(name)}; known: ${AgentInterfaceNames.join(', ')}`);
  return found;
}
