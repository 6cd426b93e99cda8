import type * as pulumi from "@pulumi/pulumi";

/** The options with outputs added to `additionalSecretOutputs`, so that the engine encrypts them in state. */
export function secretOutputs(opts: pulumi.CustomResourceOptions | undefined, names: string[]): pulumi.CustomResourceOptions {
    return { ...opts, additionalSecretOutputs: [...(opts?.additionalSecretOutputs ?? []), ...names] };
}
