import {
  AgentInterfaceNames,
  type AgentInterface,
  type AgentInterfaceName,
} from '../../shared/contracts/agent-interface';
import { chatActionKind, parseChatToolCall } from '../../shared/chat/tool-format';
import { compactActions } from '../../shared/compact-actions';

/** The chat models' interface: native tool calls in the family's format (shared/chat/tool-format.ts). */
const chatToolsInterface: AgentInterface = {
  name: 'chat-tools',
  toToolCall: (text, options) => parseChatToolCall(text, options),
  actionKind: chatActionKind,
};

const interfaces: Record<AgentInterfaceName, AgentInterface> = {
  'compact-actions': compactActions,
  'chat-tools': chatToolsInterface,
};

/** The agent interface of a name; an unknown name throws with the list of known ones. */
export function agentInterface(name: string): AgentInterface {
  const found = (interfaces as Record<string, AgentInterface | undefined>)[name];
  if (!found)
    throw new Error(`unknown agent interface ${JSON.stringify(name)}; known: ${AgentInterfaceNames.join(', ')}`);
  return found;
}
