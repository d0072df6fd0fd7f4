// The folder under the agent-rewind home where Gemini's hooks keep their prompt records (`<home>/gemini/prompts/`):
// the hook writes them, the reader matches them. Its own file so the hook process never loads the reader.
export const RECORDS_FOLDER = 'gemini';
