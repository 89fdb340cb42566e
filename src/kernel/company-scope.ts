/**
 * The company scope of a request. Client companies own goods and documents; a provider owns
 * warehouses and the unit catalogue and sees the data of all its clients.
 */

export type CompanyType = 'provider' | 'client';

export type CompanyScope =
  | { readonly kind: 'all' }
  | {
      readonly kind: 'company';
      readonly companyId: number;
      readonly companyName: string;
      readonly companyType: CompanyType;
      /** The provider: the company itself, or the provider of a client. */
      readonly providerId: number;
      /** The client companies whose data is visible: all clients of a provider, or the client itself. */
      readonly clientIds: readonly number[];
    };

export const ALL_COMPANIES: CompanyScope = Object.freeze({ kind: 'all' });

export function clientVisible(scope: CompanyScope, clientId: number): boolean {
  return scope.kind === 'all' || scope.clientIds.includes(clientId);
}

export function providerVisible(scope: CompanyScope, providerId: number): boolean {
  return scope.kind === 'all' || scope.providerId === providerId;
}

/** The client company a company scope stands for: the client itself, or undefined for a provider (or all companies). */
export function clientInScope(scope: CompanyScope): number | undefined {
  return scope.kind === 'company' && scope.companyType === 'client' ? scope.companyId : undefined;
}
