/** What other components and the operator CLI use of companies (the repository stays this component's own). */
export {
  activeModulesOf,
  clientIdsOf,
  findClient,
  findCompany,
  insertCompany,
  listAccessibleCompanies,
  listClients,
  listCompanies,
  lockCompany,
  modulesOf,
  setModule,
  setModules,
  type CompanyListRow,
  type CompanyRow,
} from './companies.repository.js';
