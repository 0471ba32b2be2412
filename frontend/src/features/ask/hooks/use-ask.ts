import { useMutation } from "@tanstack/react-query";

import { askQuestion } from "@/features/ask/api/ask-question";

export function useAsk() {
  return useMutation({ mutationFn: askQuestion });
}
