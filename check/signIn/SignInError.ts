/**
 * Why a sign-in of `durable-mcp check --sign-in` ended without a token: a sentence for the
 * finding's summary, and what the user does about it (`why`). Thrown inside the sign-in, caught
 * once (`signIn`), where it becomes the `sign-in` finding.
 */
export class SignInError extends Error {
  constructor(message: string, readonly why?: string) {
    super(message);
  }
}
